"""Fonts for names in any script. Team and method names are user text: Japanese,
Greek, symbols (✓) and emoji as well as Latin. DejaVu Sans, matplotlib's font,
has no CJK and few symbols; without another font such a name is drawn as empty
boxes in every figure (SVG, PNG and the package's PDFs).

matplotlib (3.6+) takes each glyph from the first font of ``font.family`` that has
it, so the family is DejaVu Sans followed by the fallback fonts installed here
(Debian: ``fonts-droid-fallback`` for CJK, ``fonts-symbola`` for symbols and
monochrome emoji; CI and the Docker image install them). matplotlib's list of
fonts is a cache written when it first ran: a fallback font installed since is
looked for among the system's fonts (by file name, then added)."""

from __future__ import annotations

import os

import matplotlib
from matplotlib import font_manager

#: Fallback font families, in the order they are asked for a glyph.
FALLBACK = ("Droid Sans Fallback", "Noto Sans CJK JP", "Symbola")
#: File names of the fallback fonts, to find them among the system's fonts.
_FILES = ("DroidSansFallback", "NotoSansCJK", "Symbola")


def installed_fallbacks() -> list[str]:
    """The fallback families matplotlib can use here (added to its list when
    installed after its cache was written)."""
    manager = font_manager.fontManager
    known = {entry.name for entry in manager.ttflist}
    if not all(name in known for name in FALLBACK):
        for path in font_manager.findSystemFonts():
            if os.path.basename(path).startswith(_FILES) and path.endswith(".ttf"):
                name = font_manager.FontProperties(fname=path).get_name()
                if name in FALLBACK and name not in known:
                    manager.addfont(path)
                    known.add(name)
    return [name for name in FALLBACK if name in known]


def use_fallbacks() -> None:
    matplotlib.rcParams["font.family"] = ["DejaVu Sans", *installed_fallbacks()]
