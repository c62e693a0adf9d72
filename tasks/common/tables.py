"""Writing the overview of :mod:`tasks.common.compare` as text, CSV, JSON or a LaTeX
(booktabs) table, each ending with the signature line. System names come from file
names and arguments: they are data, so CSV cells that a spreadsheet would read as a
formula are neutralised (:func:`csv_cell`) and LaTeX special characters escaped."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from typing import Any

from tasks.common.plaintext import csv_cell, latex_escape

Table = Mapping[str, Any]


def _p_text(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _value(metric: Mapping[str, Any], value: float | None) -> str:
    if value is None:
        return "–"
    return f"{round(value):,}" if metric["count"] else f"{value:.4f}"


def _interval(row: Mapping[str, Any]) -> str:
    iv = row["interval"]
    return f"{iv['value']:.4f} ± {iv['half_width']:.3f}" if iv else ""


def _significant(table: Table, i: int, j: int) -> bool:
    p = table.get("p_randomisation")
    return bool(p) and i != j and p[i][j] < table["alpha"]


def as_json(table: Table) -> str:
    return json.dumps(table, ensure_ascii=False, indent=2) + "\n"


def as_text(table: Table) -> str:
    systems = table["systems"]
    metrics = table["metrics"]
    header = ["band", "#", "system", *(m["label"] for m in metrics)]
    header.append(f"{table['metric_label']} ± CI")
    body = [
        [
            str(r["band"]),
            str(r["index"]),
            r["name"],
            *(_value(m, r["metrics"][m["key"]]) for m in metrics),
            _interval(r),
        ]
        for r in systems
    ]
    lines = _aligned([header, *body])
    if table.get("p_randomisation"):
        lines += ["", f"p-values (approximate randomisation; * p < {table['alpha']}):"]
        matrix = [["#", *(str(r["index"]) for r in systems)]]
        for i, r in enumerate(systems):
            cells = [
                "–"
                if i == j
                else _p_text(p) + ("*" if _significant(table, i, j) else "")
                for j, p in enumerate(table["p_randomisation"][i])
            ]
            matrix.append([str(r["index"]), *cells])
        lines += _aligned(matrix)
    lines += ["", f"signature: {table['signature']}"]
    return "\n".join(lines) + "\n"


def _aligned(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def as_csv(table: Table) -> str:
    """One row per system: band, rank, name, every metric, the interval, then the
    approximate-randomisation p-value against each system; a last row carries the
    signature."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    systems = table["systems"]
    metrics = table["metrics"]
    writer.writerow(
        ["band", "index", "system", *(m["key"] for m in metrics)]
        + ["ci_low", "ci_high", "ci_half_width"]
        + [f"p_vs_{r['index']}" for r in systems]
    )
    for i, r in enumerate(systems):
        iv = r["interval"] or {}
        p = table.get("p_randomisation")
        writer.writerow(
            [r["band"], r["index"], csv_cell(r["name"])]
            + [
                "" if r["metrics"][m["key"]] is None else r["metrics"][m["key"]]
                for m in metrics
            ]
            + [iv.get("low", ""), iv.get("high", ""), iv.get("half_width", "")]
            + (["" if i == j else v for j, v in enumerate(p[i])] if p else [])
        )
    writer.writerow(["signature", table["signature"]])
    return out.getvalue()


def as_latex(table: Table) -> str:
    """A booktabs table: band, rank, system, every metric, the primary metric with
    its interval, then the p-values against every other system (bold: p < alpha),
    the signature in the caption."""
    systems = table["systems"]
    metrics = table["metrics"]
    has_p = bool(table.get("p_randomisation"))
    cols = "rll" + "r" * len(metrics) + "r" + ("r" * len(systems) if has_p else "")
    head = ["Band", r"\#", "System", *(latex_escape(m["label"]) for m in metrics)]
    head.append(latex_escape(table["metric_label"]) + r" $\pm$ CI")
    if has_p:
        head += [str(r["index"]) for r in systems]
    lines = [
        r"\begin{table}",
        r"\centering",
        rf"\begin{{tabular}}{{{cols}}}",
        r"\toprule",
        " & ".join(head) + r" \\",
        r"\midrule",
    ]
    for i, r in enumerate(systems):
        cells = [str(r["band"]), str(r["index"]), latex_escape(r["name"])]
        cells += [_value(m, r["metrics"][m["key"]]).replace("–", "--") for m in metrics]
        cells.append(_interval(r).replace("±", r"$\pm$") or "--")
        if has_p:
            for j, p in enumerate(table["p_randomisation"][i]):
                text = "--" if i == j else latex_escape(_p_text(p))
                cells.append(
                    rf"\textbf{{{text}}}" if _significant(table, i, j) else text
                )
        lines.append(" & ".join(cells) + r" \\")
    caption = (
        f"{table['metric_label']} with {table['samples']}-sample paired bootstrap "
        f"95% intervals (seed {table['seed']}); p-values of approximate "
        f"randomisation; bold: p < {table['alpha']}; systems in one band are not "
        "significantly different from the band's best. "
    )
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        r"\caption{"
        + latex_escape(caption)
        + r"\texttt{"
        + latex_escape(table["signature"])
        + "}}",
        r"\end{table}",
        "",
    ]
    return "\n".join(lines)
