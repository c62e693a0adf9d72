"""What a figure's SVG says about its text (matplotlib writes each text, drawn as
glyph paths, after a comment holding the string, one per line:
``<g id="text_3"><!-- 0.2 -->``).

``problems(svg, user_texts)`` lists what is wrong: a tick label that is neither a
number nor a name (a category axis' label: a team, a word class), mathtext
(``$``, ``\\mathdefault``, ``^{``) anywhere outside the user's text, and a user's
text not drawn literally (one glyph per character: mathtext would draw ``$x^2$``
as an italic x and a raised 2, without the dollars; a space is a glyph too)."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from xml.etree import ElementTree as ET

#: A name given by a user in the tests: mathtext if matplotlib parsed it.
USER_NAME = r"$x^2$ \frac"
MATHTEXT = re.compile(r"\$|\\mathdefault|\^\{|\\times|\\frac")
SVG = "{http://www.w3.org/2000/svg}"


def _tree(svg: bytes) -> ET.Element:
    parser = ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))
    parser.feed(svg)
    return parser.close()


def texts(svg: bytes) -> list[tuple[str, str, int]]:
    """Every text of the figure: (its string, the id of the tick group it labels
    or "", the number of glyphs drawn)."""
    out = []

    def walk(node: ET.Element, tick: str) -> None:
        gid = node.get("id", "")
        if re.fullmatch(r"[xy]tick_\d+", gid):
            tick = gid
        if node.tag == f"{SVG}g" and gid.startswith("text_"):
            comments = [c for c in node if c.tag is ET.Comment]
            if comments:  # one per line of the text
                text = "\n".join(
                    html.unescape((c.text or "").strip()) for c in comments
                )
                glyphs = len(node.findall(f".//{SVG}use"))
                out.append((text, tick, glyphs))
                return
        for child in node:
            walk(child, tick)

    walk(_tree(svg), "")
    return out


def is_number(text: str) -> bool:
    try:
        float(text.replace("\u2212", "-"))
    except ValueError:
        return False
    return True


def problems(svg: bytes, user_texts: Iterable[str] = (USER_NAME,)) -> list[str]:
    users = [u for u in user_texts if u]
    found = []
    for text, tick, glyphs in texts(svg):
        mine = any(u in text for u in users)
        rest = text
        for u in users:
            rest = rest.replace(u, "")
        if MATHTEXT.search(rest):
            found.append(f"mathtext {text!r}" + (f" ({tick})" if tick else ""))
        elif tick and not (is_number(text) or mine or re.match(r"\w", text)):
            found.append(f"tick label {text!r} ({tick}) is not a number")
        if mine and glyphs != len(text.replace("\n", "")):  # spaces are glyphs
            found.append(f"{text!r} not drawn literally ({glyphs} glyphs)")
    return found


def tick_labels(svg: bytes) -> list[str]:
    return [text for text, tick, _ in texts(svg) if tick]
