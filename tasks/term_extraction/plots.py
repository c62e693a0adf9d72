"""Figures: TP/TR/TF against tau (the paper's Fig. 1a), matched terms against tau
(Fig. 1b), P/R against rank, and the leaderboard's TF(tau) per run."""

from __future__ import annotations

from collections.abc import Sequence

from tasks.base import Curve, Plot, RunDetail
from tasks.common import legends, plotting


def run_plots(curves: Sequence[Curve]) -> tuple[Plot, ...]:
    plots: list[Plot] = []
    for curve in curves:
        if curve.key != "termometer":
            plots.append(plotting.curve_plot(curve))
            continue
        fig = plotting.new_figure()
        ax = fig.add_subplot()
        for label, ys in curve.series:
            ax.plot(curve.x, ys, label=label, linewidth=1.4)
        if curve.marker_x is not None:
            ax.axvline(curve.marker_x, color="0.4", linestyle="--", linewidth=1)
            ax.annotate(f"tau = {curve.marker_x:g}", (curve.marker_x, 0.02), xytext=(4, 0),
                        textcoords="offset points", fontsize="small", color="0.3")  # fmt: skip
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel(curve.x_label)
        ax.set_ylabel(curve.y_label)
        ax.set_title(curve.title)
        ax.grid(True, alpha=0.3)
        legends.below(fig)
        plots.append(plotting.render(curve.key, curve.title, fig))
    return tuple(plots)


def leaderboard_plots(runs: Sequence[RunDetail]) -> tuple[Plot, ...]:
    """TF (and TP, TR) against tau, one line per run."""
    only = [
        RunDetail(
            r.label,
            r.detail,
            tuple(c for c in r.curves if c.key == "termometer"),
            r.metrics,
        )
        for r in runs
    ]
    return plotting.overlay_plots(only)
