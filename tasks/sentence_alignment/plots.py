"""Figures: per run, grouped P/R/F bars per level; per leaderboard, F per level per
system (ARCADE Fig. 1 shows the mean F on a logarithmic axis)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from tasks.base import Plot, RunDetail
from tasks.common import legends, plotting
from tasks.sentence_alignment.metrics import LEVELS

_LABELS = {
    "alignment": "Align",
    "sentence": "Sent",
    "word": "Word",
    "char": "Char",
    "strict": "Strict",
    "lax": "Lax",
}


def run_bars(metrics: Mapping[str, float | None], title: str) -> Plot:
    """Precision, recall and F1 for every level, grouped by level."""
    fig = plotting.new_figure(7.2, 3.8)
    ax = fig.add_subplot()
    x = np.arange(len(LEVELS))
    width = 0.27
    for offset, (stat, label) in enumerate(
        (("precision", "Precision"), ("recall", "Recall"), ("f1", "F1"))
    ):
        values = [metrics.get(f"{level}_{stat}") or 0.0 for level in LEVELS]
        ax.bar(x + (offset - 1) * width, values, width, label=label)
    ax.set_xticks(x, [_LABELS[level] for level in LEVELS])
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("score")
    ax.set_title(title)
    ax.grid(True, axis="y", alpha=0.3)
    legends.below(fig)
    return plotting.render("prf_by_level", title, fig)


def comparison_bars(runs: Sequence[RunDetail], *, log_scale: bool = False) -> Plot:
    """F1 at every level (and ARCADE's mean F) for each run, grouped by level.

    With ``log_scale`` the y axis is logarithmic, as in ARCADE's Fig. 1, which spreads
    out systems that all score close to 1.
    """
    keys = [f"{level}_f1" for level in LEVELS] + ["mean_f1"]
    labels = [_LABELS[level] for level in LEVELS] + ["Mean (ARCADE)"]
    fig = plotting.new_figure(8.0, 4.2)
    ax = fig.add_subplot()
    x = np.arange(len(keys))
    width = 0.8 / max(len(runs), 1)
    floor = 1e-3
    for i, run in enumerate(runs):
        values = [run.metrics.get(key) or 0.0 for key in keys]
        if log_scale:
            values = [max(v, floor) for v in values]
        ax.bar(
            x - 0.4 + width * (i + 0.5),
            values,
            width,
            label=plotting.legend_label(run.label),
            color=(look := plotting.style(run.label, i)).colour,
            hatch=look.hatch,
            edgecolor="white",
            linewidth=0,
        )
    ax.set_xticks(x, labels)
    if log_scale:
        ax.set_yscale("log")
        ax.set_ylim(None, 1.05)
    else:
        ax.set_ylim(0, 1.05)
    ax.set_ylabel("F1" + (" (log scale)" if log_scale else ""))
    title = "F1 per granularity and system" + (" (log scale)" if log_scale else "")
    ax.set_title(title)
    ax.grid(True, axis="y", alpha=0.3)
    legends.below(fig)
    key = "f1_by_level" + ("_log" if log_scale else "")
    return plotting.render(key, title, fig)
