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
from tasks.common.resampling import bands
from tasks.reports import best_value

Table = Mapping[str, Any]


def _p_text(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _value(metric: Mapping[str, Any], value: float | None) -> str:
    if value is None:
        return "–"
    return f"{round(value):,}" if metric["count"] else f"{value:.4f}"


def _interval(row: Mapping[str, Any], n: int = 2) -> str:
    iv = row["interval"]
    return bands.interval_text(iv["value"], iv["half_width"], n) if iv else ""


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
            "–" if r["band"] is None else str(r["band"]),
            str(r["index"]),
            r["name"],
            *(_value(m, r["metrics"][m["key"]]) for m in metrics),
            _interval(r, int(table.get("n_items") or 2)),
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
    if table.get("bands_legend"):
        lines += ["", str(table["bands_legend"])]
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


def _best(table: Table, metric: Mapping[str, Any]) -> float | None:
    """The column's "best" value (:func:`tasks.reports.best_value`: quality
    metrics only, per their direction)."""
    return best_value(
        [r["metrics"][metric["key"]] for r in table["systems"]],
        higher_is_better=metric.get("higher_is_better", True),
        quality=metric.get("quality", not metric["count"]),
    )


def _bold(text: str, bold: bool) -> str:
    return rf"\textbf{{{text}}}" if bold else text


def _caption(table: Table, short: str, text: str) -> str:
    """``\\caption[short]{text signature}``: the short form (list of tables) names
    the test set and track; braces keep a ``]`` in a name from ending it."""
    return (
        r"\caption[{"
        + latex_escape(short)
        + "}]{"
        + latex_escape(text)
        + r"\texttt{"
        # A break may follow each "|": the signature is one long word otherwise.
        + latex_escape(table["signature"]).replace("|", r"|\allowbreak{}")
        + "}}"
    )


def _label(table: Table, kind: str) -> list[str]:
    """``\\label{tab:<kind>-<label>}`` when the table has a ``label`` (ASCII letters,
    digits and ``-`` only, so that any document accepts it)."""
    label = str(table.get("label") or "")
    if not label:
        return []
    safe = "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in label)
    return [rf"\label{{tab:{kind}-{safe}}}"]


def _on(table: Table, what: str) -> str:
    """``"Results on <title>"``: the test set and track the table is of (plain
    text; ``what`` alone without a title)."""
    title = table.get("title")
    return f"{what} on {title}" if title else what


def _primary_cell(table: Table, row: Mapping[str, Any]) -> str:
    """The primary metric with the half-width of its interval when there is one
    (``0.4567 $\\pm$ 0.031``): the metric appears once in the table."""
    metric = next(m for m in table["metrics"] if m["key"] == table["metric"])
    text = _value(metric, row["metrics"].get(table["metric"])).replace("–", "--")
    iv = row["interval"]
    if not iv or text == "--":
        return text
    if iv["half_width"] <= 0 or int(table.get("n_items") or 2) < 2:
        return text + " (no interval)"
    half = bands.interval_text(iv["value"], iv["half_width"], 2).split(" ± ")[1]
    return text + rf" $\pm$ {half}"


def results_latex(table: Table) -> str:
    """The results of one test set (and track) as a booktabs table: band, rank,
    system, the primary metric with its interval (once), then the table's other
    metrics (``table_metrics``: the task type's leaderboard metrics; every metric
    without it); the best value of each quality metric in bold (all tied values;
    counts are never "best"); a ``\\midrule`` between significance bands; the
    caption names the test set and track (``title``) and ends with the signature;
    ``\\label{tab:results-<label>}``."""
    systems = table["systems"]
    shown = table.get("table_metrics")
    primary = next(m for m in table["metrics"] if m["key"] == table["metric"])
    metrics = [
        m
        for m in table["metrics"]
        if (not shown or m["key"] in shown) and m["key"] != table["metric"]
    ]
    has_p = bool(table.get("p_randomisation"))
    has_ci = any(r["interval"] for r in systems)
    cols = "rll" + "r" * (1 + len(metrics))
    head = ["Band", r"\#", "System"]
    head.append(latex_escape(primary["label"]) + (r" ($\pm$ CI)" if has_ci else ""))
    head += [latex_escape(m["label"]) for m in metrics]
    best = {m["key"]: _best(table, m) for m in table["metrics"]}
    lines = [
        r"\begin{table}",
        r"\centering",
        rf"\begin{{tabular}}{{{cols}}}",
        r"\toprule",
        " & ".join(head) + r" \\",
        r"\midrule",
    ]
    for i, r in enumerate(systems):
        if has_p and i and r["band"] != systems[i - 1]["band"]:
            lines.append(r"\midrule")
        band = "--" if r["band"] is None else str(r["band"])
        cells = [band, str(r["index"]), latex_escape(r["name"])]
        value = r["metrics"].get(table["metric"])
        cells.append(
            _bold(
                _primary_cell(table, r),
                value is not None and value == best[table["metric"]],
            )
        )
        for m in metrics:
            value = r["metrics"][m["key"]]
            text = _value(m, value).replace("–", "--")
            cells.append(_bold(text, value is not None and value == best[m["key"]]))
        lines.append(" & ".join(cells) + r" \\")
    interval = (
        f" (± the half-width of its {table['confidence']:.0%} paired-bootstrap "
        f"interval, {table['samples']} samples, seed {table['seed']})"
        if has_ci
        else ""
    )
    caption = (
        f"{_on(table, 'Results')}: {len(systems)} "
        f"{'system' if len(systems) == 1 else 'systems'} ranked by "
        f"{primary['label']}{interval}. Bold: the best value of each quality metric "
        "(counts are not ranked). "
        + (
            "Rules separate the significance bands. "
            if has_p and table.get("powered", True)
            else ""
        )
        + (
            latex_escape(str(table["bands_legend"])) + " "
            if table.get("bands_legend")
            else ""
        )
    )
    lines += [r"\bottomrule", r"\end{tabular}"]
    lines += [
        _caption(table, _on(table, "Results"), caption),
        *_label(table, "results"),
    ]
    lines += [r"\end{table}", ""]
    return "\n".join(lines)


def pvalues_latex(table: Table) -> str:
    """The pairwise p-values of approximate randomisation as a booktabs table (bold:
    p < alpha), captioned with the test set and track (``title``),
    ``\\label{tab:pvalues-<label>}``; "" without a p-value matrix (e.g. runs on
    different items)."""
    if not table.get("p_randomisation"):
        return ""
    systems = table["systems"]
    head = [r"\#", "System", *(str(r["index"]) for r in systems)]
    lines = [
        r"\begin{table}",
        r"\centering",
        rf"\begin{{tabular}}{{rl{'r' * len(systems)}}}",
        r"\toprule",
        " & ".join(head) + r" \\",
        r"\midrule",
    ]
    for i, r in enumerate(systems):
        cells = [str(r["index"]), latex_escape(r["name"])]
        for j, p in enumerate(table["p_randomisation"][i]):
            text = "--" if i == j else latex_escape(_p_text(p))
            cells.append(_bold(text, _significant(table, i, j)))
        lines.append(" & ".join(cells) + r" \\")
    short = _on(table, "Pairwise p-values")
    caption = (
        f"{short}: approximate randomisation ({table['samples']} trials, seed "
        f"{table['seed']}) on {table['metric_label']}; systems numbered as in the "
        f"results table; bold: p < {table['alpha']}. "
    )
    lines += [r"\bottomrule", r"\end{tabular}", _caption(table, short, caption)]
    lines += [*_label(table, "pvalues"), r"\end{table}", ""]
    return "\n".join(lines)


def pvalues_csv(table: Table) -> str:
    """Every pair of systems once: names, the difference of the primary metric and
    both p-values; a last row carries the signature."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["index_a", "system_a", "index_b", "system_b", "delta"]
        + ["p_randomisation", "p_bootstrap"]
    )
    systems = table["systems"]
    if table.get("p_randomisation"):
        for i, a in enumerate(systems):
            for j in range(i + 1, len(systems)):
                b = systems[j]
                writer.writerow(
                    [a["index"], csv_cell(a["name"]), b["index"], csv_cell(b["name"])]
                    + [table["delta"][i][j], table["p_randomisation"][i][j]]
                    + [table["p_bootstrap"][i][j]]
                )
    writer.writerow(["signature", table["signature"]])
    return out.getvalue()


def as_latex(table: Table) -> str:
    """The results table (:func:`results_latex`), then the p-value matrix
    (:func:`pvalues_latex`): what the overview-paper package holds per board."""
    pvalues = pvalues_latex(table)
    return results_latex(table) + ("\n" + pvalues if pvalues else "")
