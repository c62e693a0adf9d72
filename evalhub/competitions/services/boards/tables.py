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
from collections.abc import Iterable, Sequence

from tasks.common.plaintext import FORMULA_PREFIXES, csv_cell, latex_escape

__all__ = [
    "FORMULA_PREFIXES",
    "CsvWriter",
    "booktabs",
    "csv_cell",
    "csv_text",
    "latex_escape",
]


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
