"""Figures: the paper's tables 1-3 as grouped bar charts, and tables 1-4 as a
figure (systems x word class, each cell the high / medium / low triple)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tasks.base import JSON, Plot, RunDetail
from tasks.common import legends, plotting
from tasks.mt_lexicon_probe.probes import FreqClass
from tasks.mt_lexicon_probe.scoring import (
    GROUPS,
    MEASURES,
    TABLE_TITLES,
    Tables,
    tabulate_items,
)

LABELS = {
    "translated": "translated",
    "correct": "correct",
    "correct_strict": "correct w/o wf",
}


def _value(v: object) -> float:
    return float(v) * 100 if isinstance(v, (int, float)) else 0.0


def _row(payload: Mapping[str, JSON], measure: str, group: str) -> Mapping[str, JSON]:
    table = payload.get(measure)
    row = table.get(group) if isinstance(table, Mapping) else None
    return row if isinstance(row, Mapping) else {}


def run_bars(payload: Mapping[str, JSON]) -> Plot:
    """Per system: one panel per word class (and the mean), frequency classes on x,
    one bar per share. Null cells are drawn empty and marked n/a."""
    fig = plotting.new_figure(9.0, 3.8)
    axes = fig.subplots(1, len(GROUPS), sharey=True)
    width = 0.8 / len(MEASURES)
    for ax, group in zip(axes, GROUPS, strict=True):
        for i, measure in enumerate(MEASURES):
            row = _row(payload, measure, group)
            xs = [j + (i - 1) * width for j in range(len(FreqClass))]
            values = [row.get(fc.value) for fc in FreqClass]
            ax.bar(xs, [_value(v) for v in values], width, label=LABELS[measure])
            for x, v in zip(xs, values, strict=True):
                if v is None:
                    ax.text(x, 2, "n/a", ha="center", rotation=90, fontsize="small")
        ax.set_xticks(range(len(FreqClass)), [fc.value for fc in FreqClass])
        ax.set_title(group)
        ax.set_ylim(0, 105)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].set_ylabel("% of judged items")
    legends.below(fig)
    return plotting.render(
        "shares", "Translated / correct shares by word and frequency class", fig
    )


def systems_by_frequency(runs: Sequence[RunDetail]) -> tuple[Plot, ...]:
    """One chart per frequency class: systems side by side, one bar per share
    (mean over word classes), like the paper's tables 1-3."""
    plots = []
    width = 0.8 / len(MEASURES)
    for fc in FreqClass:
        fig = plotting.new_figure(max(5.0, 1.1 * len(runs) + 2), 3.6)
        ax = fig.add_subplot()
        for i, measure in enumerate(MEASURES):
            xs = [j + (i - 1) * width for j in range(len(runs))]
            ys = [_value(r.metrics.get(f"{measure}_{fc.value}_mean")) for r in runs]
            ax.bar(xs, ys, width, label=LABELS[measure])
        ax.set_xticks(
            range(len(runs)), [r.label for r in runs], rotation=20, ha="right"
        )
        ax.set_ylim(0, 105)
        ax.set_ylabel("% of judged items (mean over word classes)")
        ax.set_title(f"{fc.value} frequency")
        ax.grid(True, axis="y", alpha=0.3)
        legends.below(fig)
        plots.append(
            plotting.render(
                f"systems_{fc.value}", f"Systems, {fc.value} frequency", fig
            )
        )
    return tuple(plots)


def gap(runs: Sequence[RunDetail]) -> Plot:
    """Translated minus correct per system and frequency class (percentage points):
    the paper's indication of how many translations of unknown words are wrong."""
    fig = plotting.new_figure(max(5.0, 1.1 * len(runs) + 2), 3.6)
    ax = fig.add_subplot()
    width = 0.8 / len(FreqClass)
    for i, fc in enumerate(FreqClass):
        xs = [j + (i - 1) * width for j in range(len(runs))]
        ys = []
        for r in runs:
            t = r.metrics.get(f"translated_{fc.value}_mean")
            c = r.metrics.get(f"correct_{fc.value}_mean")
            ys.append(0.0 if t is None or c is None else (t - c) * 100)
        ax.bar(xs, ys, width, label=fc.value)
    ax.set_xticks(range(len(runs)), [r.label for r in runs], rotation=20, ha="right")
    ax.set_ylabel("translated - correct (points)")
    ax.set_title("Translated but wrong")
    ax.grid(True, axis="y", alpha=0.3)
    legends.below(fig)
    return plotting.render("translated_minus_correct", "Translated minus correct", fig)


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.0f}"


def paper_table_rows(
    runs: Sequence[RunDetail], *, count_proposed: bool = True
) -> dict[str, list[list[str]]]:
    """The paper's tables as text rows per measure: ``[system, adj, noun, verb,
    mean]``, each cell "high / medium / low" in % of judged items ("–" = nothing
    judged), plus ``"wrong_determiners"``: ``[system, count, items awaiting
    annotation]``. Runs without per-item records are left out.

    >>> run = RunDetail("A", {"items": [
    ...     {"id": "a", "pos": "adj", "freq_class": "low", "tag": "c", "source": "judgement"},
    ...     {"id": "b", "pos": "adj", "freq_class": "low", "tag": "u", "source": "auto_u"},
    ... ]}, (), {})
    >>> paper_table_rows([run])["translated"]
    [['A', '– / – / 50', '– / – / –', '– / – / –', '– / – / 50']]
    """
    tables: list[tuple[str, Tables]] = []
    for run in runs:
        items = run.detail.get("items")
        tab = (
            tabulate_items(items, count_proposed=count_proposed)  # type: ignore[arg-type]
            if isinstance(items, list)
            else None
        )
        if tab is not None:
            tables.append((run.label, tab))
    out: dict[str, list[list[str]]] = {}
    for measure in MEASURES:
        out[measure] = [
            [label]
            + [
                " / ".join(_percent(row[fc.value]) for fc in FreqClass)
                for row in (tab.table(measure)[g] for g in GROUPS)
            ]
            for label, tab in tables
        ]
    out["wrong_determiners"] = [
        [label, str(tab.wrong_determiners), str(tab.n_pending)] for label, tab in tables
    ]
    return out


def paper_tables(
    runs: Sequence[RunDetail], *, count_proposed: bool = True
) -> Plot | None:
    """Tables 1-4 of Volk (1997) for the given systems, as one figure."""
    rows = paper_table_rows(runs, count_proposed=count_proposed)
    if not rows["wrong_determiners"]:
        return None
    n = len(rows["wrong_determiners"])
    fig = plotting.new_figure(9.0, 1.2 + 4 * (0.75 + 0.3 * n))
    axes = fig.subplots(4, 1)
    heads = {m: ["system", "adjectives", "nouns", "verbs", "mean"] for m in MEASURES}
    heads["wrong_determiners"] = ["system", "wrong determiners", "awaiting annotation"]
    titles = {
        **TABLE_TITLES,
        "wrong_determiners": "Table 4: wrong determiners (nouns, all frequencies)",
    }
    for ax, key in zip(axes, (*MEASURES, "wrong_determiners"), strict=True):
        ax.axis("off")
        ax.set_title(titles[key], loc="left", fontsize="medium")
        table = ax.table(cellText=rows[key], colLabels=heads[key], loc="upper left")
        table.auto_set_font_size(False)
        table.set_fontsize(8.5)  # 11.3 px at the size it is shown
        # Columns as wide as their text: a system's name is never cut.
        table.auto_set_column_width(list(range(len(heads[key]))))
    fig.suptitle("% of judged items, high / medium / low frequency", fontsize="small")
    return plotting.render("tables", "Tables 1-4 (Volk 1997)", fig)
