"""How deep an HTML parser may nest the elements of a text, known in one pass.

The HTML cleaner (nh3, html5ever's tree builder) spends time proportional to the
depth of the open elements on every tag: 50,000 nested quotes take minutes. So
``evalhub.competitions.markdown`` asks ``exceeds`` before cleaning. The answer is
an upper bound of the parser's depth for the HTML cmark-gfm makes (well nested)
with raw HTML inside (anything): it follows the parser's rules that make elements
(every start tag; formatting elements opened again after a block closed them;
"Noah's Ark", three alike at most) and only the simplest that close them (an end
tag past formatting elements, a block's also past paragraphs and list items; a new
paragraph or list item), so a parser may close more, never less. Tags in comments or scripts count.

Each formatting element opened again is a copy of its tag in the parser's output:
``<b title=1>…<b title=90>`` left open before 12,000 paragraphs made 20 MB of
HTML from 50,000 characters. ``measure`` counts those copies as it goes and stops
at a budget, so the caller learns that the output would be too large without
anyone building it; the pass costs at most the open formatting elements (the
depth limit) per tag.
"""

from __future__ import annotations

import re

# A tag, its name and (the start of) its attributes, or text up to the next tag;
# bounded repetitions, so one pass.
_TOKEN = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)([^<>]{0,200})>?|([^<]+)")
_VOID = frozenset(
    "area base br col embed hr img input keygen link meta param source track wbr".split()
)
_FORMATTING = frozenset(
    "a b big code em font i nobr s small strike strong tt u".split()
)
# A start tag of one of these closes an open element of its name; an end tag
# closes them on its way to its own.
_CLOSE_OWN = frozenset("p li dd dt option".split())
# Start tags before which the parser does not open formatting elements again (the
# "special" elements; of these, void ones such as img and br do).
_SPECIAL = frozenset(
    """address applet article aside base basefont bgsound blockquote body button
    caption center col colgroup dd details dir div dl dt fieldset figcaption figure
    footer form frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html iframe
    li link listing main marquee menu meta nav noembed noframes noscript object ol p
    param plaintext pre script section select style summary table tbody td template
    textarea tfoot th thead title tr ul xmp""".split()
)


class _Element:
    __slots__ = ("active", "attributes", "name", "open")

    def __init__(self, name: str, attributes: str) -> None:
        self.name, self.attributes, self.open = name, attributes, True
        self.active = False

    def copy_size(self) -> int:
        """Characters of a copy of the element's tags (start and end)."""
        return 2 * len(self.name) + len(self.attributes) + 5

    def alike(self, other: _Element) -> bool:
        return self.name == other.name and self.attributes == other.attributes


class _Tree:
    """The parser's open elements and its active formatting elements (those it
    opens again before the next text once a block closed them: ``pending``)."""

    def __init__(self) -> None:
        self.stack: list[_Element] = []
        self.active: list[_Element] = []
        self.pending = 0
        self.copies = 0  # characters of the tags opened again

    def reopen(self) -> None:
        if self.pending:
            for element in self.active:
                if not element.open:
                    element.open = True
                    self.stack.append(element)
                    self.copies += element.copy_size()
            self.pending = 0

    def open(self, name: str, attributes: str) -> None:
        element = _Element(name, attributes)
        self.stack.append(element)
        if name in _FORMATTING:
            alike = [e for e in self.active if e.alike(element)]
            if len(alike) >= 3:
                self.forget(alike[0])
            self.active.append(element)
            element.active = True

    def forget(self, element: _Element) -> None:
        self.active.remove(element)
        element.active = False
        if not element.open:
            self.pending -= 1

    def close(self, name: str) -> None:
        """An end tag of ``name``: closes the last open ``name`` if only
        formatting elements, or for a block also paragraphs and list items, were
        opened after it (these close with it; the formatting ones stay active),
        else nothing (a parser keeps a block inside formatting open)."""
        stack = self.stack
        passable = _FORMATTING if name in _FORMATTING else _FORMATTING | _CLOSE_OWN
        for at in range(len(stack) - 1, -1, -1):
            element = stack[at]
            if element.name == name:
                if element.active:
                    self.forget(element)
                for closed in stack[at + 1 :]:
                    if closed.active:
                        closed.open = False
                        self.pending += 1
                del stack[at:]
                return
            if element.name not in passable:
                return


def exceeds(html: str, limit: int) -> bool:
    """Whether an HTML parser may nest the elements of ``html`` more than
    ``limit`` deep (or keep more than ``limit`` formatting elements to open again
    at the next text)."""
    return measure(html, limit, budget=None) == DEEP


#: What ``measure`` finds: too deep, or too many tags opened again.
DEEP, COPIES = "deep", "copies"


def measure(html: str, limit: int, budget: int | None) -> str:
    """``DEEP`` when a parser may nest the elements of ``html`` more than
    ``limit`` deep (see ``exceeds``), ``COPIES`` when the formatting elements it
    opens again may add more than ``budget`` characters of tags to its output,
    else "". Stops at the first it finds."""
    tree = _Tree()
    for match in _TOKEN.finditer(html):
        end, name, attributes, text = match.groups()
        if text is not None:
            if text.strip():
                tree.reopen()
                if budget is not None and tree.copies > budget:
                    return COPIES
            continue
        name = name.lower()
        if end or name in _CLOSE_OWN:
            tree.close(name)
        if end:
            continue
        if name in _FORMATTING or name not in _SPECIAL:
            tree.reopen()
        if name not in _VOID:
            tree.open(name, attributes)
            if len(tree.stack) > limit or len(tree.active) > limit:
                return DEEP
        if budget is not None and tree.copies > budget:
            return COPIES
    return ""
