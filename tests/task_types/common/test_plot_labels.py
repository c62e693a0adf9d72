"""User text in figures is plain text: a team label starting with "_" (which
matplotlib would leave out of the legend) is drawn and listed in the figure's data."""

from __future__ import annotations

from tasks.common import plotting
from tasks.pages import RunDetail
from tasks.reports import Curve


def _run(label: str, ys: list[float]) -> RunDetail:
    curve = Curve(
        key="pr",
        title="P/R",
        x=(1.0, 2.0, 3.0),
        series=(("precision", tuple(ys)),),
        x_label="rank",
        y_label="precision",
    )
    return RunDetail(label=label, detail={}, curves=(curve,), metrics={})


def test_a_label_starting_with_an_underscore_keeps_its_legend_entry_and_data():
    runs = [_run("_underscored team", [1.0, 0.5, 0.3]), _run("plain", [0.5, 0.5, 0.5])]
    with plotting.collecting_points() as points:
        plots = plotting.overlay_plots(runs)
    assert plots
    series = {label for rows in points.values() for _, label, _, _ in rows}
    assert series == {"_underscored team", "plain"}
    assert plotting.legend_label("_x") != "_x" and plotting.legend_label("x") == "x"
