"""The leaderboard's interval chart: each shown run's primary metric with its
bootstrap interval as an error bar, best at the top."""

from __future__ import annotations

from collections.abc import Mapping

from evalhub.competitions.models import Submission, TestSet
from evalhub.competitions.services import team_colours
from tasks.base import Plot
from tasks.common import plotting


def interval_chart(*, test_set: TestSet, data: Mapping[str, object]) -> Plot | None:
    matrix = data.get("matrix") or {}
    intervals = data.get("intervals") or {}
    runs = [pk for pk in matrix.get("runs", []) if str(pk) in intervals]  # type: ignore[union-attr, operator]
    if not runs:
        return None
    subs = Submission.objects.select_related("team").in_bulk(runs)
    metric = test_set.phase.task.type.metric(str(data["metric"]))
    rows = [(subs[pk], intervals[str(pk)]) for pk in runs]  # type: ignore[index]
    height = 1.2 + 0.35 * len(rows)
    fig = plotting.new_figure(6.4, max(2.4, height))
    ax = fig.add_subplot()
    ys = list(range(len(rows)))[::-1]
    values = [iv["value"] for _, iv in rows]
    lows = [iv["value"] - iv["low"] for _, iv in rows]
    highs = [iv["high"] - iv["value"] for _, iv in rows]
    colours = team_colours.team_colours(task=test_set.phase.task)
    for (sub, _), y, value, low, high in zip(
        rows, ys, values, lows, highs, strict=True
    ):
        ax.errorbar(
            [value],
            [y],
            xerr=[[low], [high]],
            fmt="o",
            capsize=3,
            color=colours.get(sub.team_id, plotting.PALETTE[0]),
            linewidth=1.2,
        )
    ax.set_yticks(ys, [f"{s.team.name} · {s.method_name}"[:40] for s, _ in rows])
    confidence = float(data.get("confidence", 0.95))  # type: ignore[arg-type]
    ax.set_xlabel(
        f"{metric.label} ({confidence:.0%} bootstrap interval, "
        f"{data.get('samples')} samples)"
    )
    ax.set_title(f"{metric.label} with confidence intervals")
    ax.grid(True, axis="x", alpha=0.3)
    return plotting.render("primary-intervals", f"{metric.label} ± CI", fig)
