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
    r"""Plain text for LaTeX.

    >>> latex_escape("R&D_50% $x$")
    'R\\&D\\_50\\% \\$x\\$'
    """
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)
