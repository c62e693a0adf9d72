"""The interval chart drawn for a phone's column: each run's name on a line of
its own above its interval (not beside it, where the names took two thirds of the
width), a short axis label, the title on one line; its text no smaller than the
phone figures' minimum (``tasks.common.narrow``)."""

from __future__ import annotations

from collections.abc import Sequence

#: Characters per line of a run's name above its interval.
NAME_WRAP = 38


def narrow_svg(
    rows: Sequence[tuple[str, float, float, float, str, str]],
    *,
    metric_label: str,
    confidence: float,
    cut: bool,
) -> bytes:
    """``rows``: as the chart's (``charts.ChartInput.rows``), best first."""
    # Imported when drawn: the web processes import this module, never draw.
    from matplotlib.transforms import blended_transform_factory

    from tasks.common import narrow, plotting
    from tasks.common.figure_text import wrapped

    names = [wrapped(row[0], NAME_WRAP) for row in rows]
    steps = [1.0 + 0.45 * name.count("\n") for name in names]
    # The whole height before ``narrow.narrow_svg`` takes 85 % of it.
    height = (1.3 + 0.42 * sum(steps)) / 0.85
    fig = plotting.new_figure(narrow.NARROW_WIDTH, height)
    ax = fig.add_subplot()
    where = blended_transform_factory(ax.transAxes, ax.transData)
    y = 0.0
    ys = []
    for step in reversed(steps):  # the best run on top
        ys.append(y)
        y += step + 0.4
    ys.reverse()
    for (_, value, low, high, colour, marker), name, y in zip(
        rows, names, ys, strict=True
    ):
        ax.errorbar(
            [value],
            [y],
            xerr=[[value - low], [high - value]],
            fmt=marker,
            capsize=3,
            color=colour,
            linestyle="none",
            linewidth=1.2,
        )
        ax.text(
            0.01,
            y + 0.25,
            name,
            transform=where,
            fontsize=narrow.MIN_FONT,
            ha="left",
            va="bottom",
        )
    ax.set_yticks([])
    ax.set_ylim(-0.6, ys[0] + steps[0] + 0.2)
    ax.tick_params(axis="x", labelsize=narrow.MIN_FONT)
    ax.set_xlabel(f"{metric_label}, {confidence:.0%} interval")
    title = f"{metric_label} with confidence intervals"
    if cut:
        title += f"\nthe board's first {len(rows)} runs"
    ax.set_title(title, fontsize=10)
    ax.grid(True, axis="x", alpha=0.3)
    return narrow.narrow_svg(fig)
