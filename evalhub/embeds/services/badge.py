"""A board's badge: an SVG of two parts, the board (task, test set, track) on
the left, its leader, score and the moment on the right, for READMEs and
slides. Each part is as wide as its text: measured with the font it names
first (DejaVu Sans, which matplotlib ships), and held to that width
(``textLength``) in a viewer that draws another. User text is plain text:
escaped, with the characters XML cannot hold taken out."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import cache

from django.template.loader import render_to_string

from evalhub.embeds.services.shown import Shown

FONT_SIZE = 11
HEIGHT = 20
PADDING = 6  # each side of a part's text
#: Longest text of a part, in characters ("…" ends a longer one).
MAX_CHARS = 72
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")
_lock = threading.Lock()


@cache
def _font():  # noqa: ANN202 - a matplotlib FT2Font
    from matplotlib import font_manager, ft2font

    font = ft2font.FT2Font(font_manager.findfont("DejaVu Sans"))
    font.set_size(FONT_SIZE, 72)  # points at 72 dpi: pixels
    return font


def text_width(text: str) -> float:
    """``text``'s width in pixels, drawn in DejaVu Sans at ``FONT_SIZE``."""
    with _lock:
        font = _font()
        font.set_text(text, 0.0)
        return font.get_width_height()[0] / 64


def plain(text: str) -> str:
    """``text`` on one line, without what XML cannot hold, at most ``MAX_CHARS``
    characters (escaping is the template's)."""
    text = " ".join(_NOT_XML.sub("", text).split())
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"


@dataclass(frozen=True, slots=True)
class Part:
    text: str
    x: float  # where the part starts
    width: float
    text_width: float

    def numbers(self) -> dict[str, str]:
        """Its numbers as the SVG holds them (never localised)."""
        return {
            "x": f"{self.x:.1f}",
            "width": f"{self.width:.1f}",
            "middle": f"{self.x + self.width / 2:.1f}",
            "text_width": f"{self.text_width:.1f}",
            "text": self.text,
        }


def _part(text: str, x: float) -> Part:
    measured = round(text_width(text), 1)
    return Part(text, x, round(measured + 2 * PADDING, 1), measured)


def texts(shown: Shown) -> tuple[str, str]:
    """The badge's two texts: the board, and its leader (or why none) with the
    moment it shows."""
    board = shown.task + " · " + shown.board
    if shown.track:
        board += f" · {shown.track}"
    when = shown.as_of.strftime("%Y-%m-%d %H:%M UTC")
    if shown.leader is None:
        right = shown.note.rstrip(".").lower() if shown.note else "no leader yet"
        right = "no public score" if "private" in right else right
    else:
        leader = shown.leader
        right = f"1st {leader.team} ({leader.method}) {leader.score}"
    return plain(board), plain(right) + f" · as of {when}"


def svg(shown: Shown) -> bytes:
    left_text, right_text = texts(shown)
    left = _part(left_text, 0.0)
    right = _part(right_text, left.width)
    return render_to_string(
        "embeds/badge.svg",
        {
            "left": left.numbers(),
            "right": right.numbers(),
            "width": f"{left.width + right.width:.1f}",
            "height": HEIGHT,
            "font_size": FONT_SIZE,
            "label": f"{left_text}: {right_text}",
            "leader": shown.leader is not None,
        },
    ).encode()
