"""The one table writer of the exports: CSV for spreadsheets and booktabs LaTeX for
papers. User text (team and method names, titles) is data in both:

- **CSV**: a text cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
  return would be run as a formula by a spreadsheet (OWASP, "CSV injection"); it is
  written with a leading single quote. Numbers are never changed: cells passed as
  ``int``/``float`` are written as Python writes them (full precision), and a text
  cell that is a plain decimal number (``-0.0125``, ``1e-05``) is a number, not a
  formula.
- **LaTeX**: :func:`latex_escape` turns every special character into its command;
  :func:`booktabs` lays out a ``table`` whose cells the caller has escaped.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\Z")


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


class CsvWriter:
    """``csv.writer`` (``\\n`` line ends) whose every row goes through
    :func:`csv_cell`."""

    def __init__(self, out: io.TextIOBase | io.StringIO) -> None:
        self._writer = csv.writer(out, lineterminator="\n")

    def writerow(self, row: Iterable[object]) -> None:
        self._writer.writerow([csv_cell(v) for v in row])


def csv_text(header: Sequence[str], rows: Iterable[Iterable[object]]) -> str:
    """A whole CSV document: the header, then the rows."""
    out = io.StringIO()
    writer = CsvWriter(out)
    writer.writerow(header)
    for row in rows:
        writer.writerow(row)
    return out.getvalue()


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


def latex_escape(text: str) -> str:
    r"""Plain text for LaTeX.

    >>> latex_escape("R&D_50% $x$")
    'R\\&D\\_50\\% \\$x\\$'
    """
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def booktabs(
    *,
    columns: str,
    header: Sequence[str],
    rows: Iterable[Sequence[str]],
    caption: str,
    label: str = "",
    placement: str = "",
) -> list[str]:
    """The lines of a booktabs ``table`` (needs ``\\usepackage{booktabs}``). Every
    cell, the header and the caption are LaTeX already: escape user text with
    :func:`latex_escape` first."""
    lines = [
        f"\\begin{{table}}{placement}",
        "\\centering",
        f"\\begin{{tabular}}{{{columns}}}",
        "\\toprule",
        " & ".join(header) + " \\\\",
        "\\midrule",
    ]
    lines += [" & ".join(cells) + " \\\\" for cells in rows]
    lines += ["\\bottomrule", "\\end{tabular}", f"\\caption{{{caption}}}"]
    if label:
        lines.append(f"\\label{{{label}}}")
    lines.append("\\end{table}")
    return lines
