"""User text (team, method and file names, titles) as plain data in the formats that
would otherwise interpret it: CSV opened by a spreadsheet, and LaTeX. One place for
both the offline tables (:mod:`tasks.common.tables`) and the platform's exports.

- **CSV**: a text cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
  return would be run as a formula by a spreadsheet (OWASP, "CSV injection"); it is
  written with a leading single quote. Numbers are never changed: cells passed as
  ``int``/``float`` stay numbers, and a text cell that is a plain decimal number
  (``-0.0125``, ``1e-05``) is a number, not a formula.
- **LaTeX**: every special character becomes its command.
"""

from __future__ import annotations

import re
import unicodedata

#: A spreadsheet treats a cell starting with one of these as a formula.
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\Z")

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}


def csv_cell(value: object) -> object:
    """``value`` as a CSV cell a spreadsheet shows as it is.

    >>> csv_cell('=HYPERLINK("http://x/","y")')
    '\\'=HYPERLINK("http://x/","y")'
    >>> csv_cell("-0.25"), csv_cell(-0.25), csv_cell("-- a team")
    ('-0.25', -0.25, "'-- a team")
    """
    if (
        isinstance(value, str)
        and value.startswith(FORMULA_PREFIXES)
        and not _NUMBER.match(value)
    ):
        return "'" + value
    return value


def latex_escape(text: str) -> str:
    r"""Plain text for LaTeX; control characters (a line break in a name would end
    a table row or a paragraph) become spaces.

    >>> latex_escape("R&D_50% $x$")
    'R\\&D\\_50\\% \\$x\\$'
    """
    return "".join(
        _LATEX_SPECIAL.get(ch, " " if unicodedata.category(ch) == "Cc" else ch)
        for ch in text
    )


#: Characters a URL keeps inside ``\url{...}``; anything else is percent-encoded.
_URL_SAFE = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    "-._~:/?#[]@!&'()*+,;=%"
)


def latex_url(url: str) -> str:
    r"""A link for ``\url{...}`` (url.sty, not inside another command's
    argument): ``%``, ``#``, ``&``, ``~`` and ``_`` stay as they are (``\url``
    prints them verbatim); a character that could end the argument or start a
    command (``\``, ``{``, ``}``, ``^``, spaces, control characters) is
    percent-encoded, as a browser would send it; non-ASCII letters stay.

    >>> latex_url("https://x.org/a b?q={1}&r=50%")
    'https://x.org/a%20b?q=%7B1%7D&r=50%'
    """
    out = []
    for ch in url:
        if ch in _URL_SAFE or (not ch.isascii() and ch.isprintable()):
            out.append(ch)
        else:
            out.append("".join(f"%{b:02X}" for b in ch.encode()))
    return "".join(out)
