"""Legends that never cover data: every figure with a legend puts it below its
plot, outside the axes, through :func:`below`.

A legend inside the axes covers what is drawn under it: matplotlib's
``loc="best"`` weighs a bar by its corners only and a line by its vertices, so it
happily sits on the middle of a tall bar or across a curve, and a fixed corner
("lower right") covers whatever runs there. Below the plot it covers nothing:
the constrained layout keeps it clear of the axes, their tick labels included.
Its entries take as many columns as fit the figure's width (measured, never
guessed from a count: run names are long), and the figure grows by the
legend's height, so the plot keeps the size it was drawn for. The phone's
figure (``narrow``) lays the same legend out again, one entry per row, from the
figure's size before it grew (:func:`grown`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.legend import Legend

#: The most columns a legend takes, however wide the figure.
MAX_COLUMNS = 4
#: Inches kept free between the legend and the figure's sides.
_SIDES = 0.1
#: Inches added under the legend to its measured height.
_GAP = 0.08
#: Where ``below`` notes on a legend how many inches it grew the figure.
_GROWN = "_evalhub_grown"


def below(fig: Figure, axes: list[Axes] | None = None) -> Legend | None:
    """One legend for the series of ``axes`` (default: every axes of ``fig``;
    a label met again in another panel is listed once), below the plot, in as
    many columns (at most ``MAX_COLUMNS``) as fit the figure's width; the figure
    grows by its height. None when nothing is labelled."""
    # Imported when drawn, as matplotlib is (``plotting``).
    from tasks.common.figure_text import WRAP, wrapped

    handles, labels = [], []
    for ax in fig.axes if axes is None else axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
    if not handles:
        return None
    labels = [wrapped(label, WRAP) for label in labels]  # as ``protect`` wraps them
    renderer = fig._get_renderer()  # noqa: SLF001 - measures, draws nothing
    room = fig.bbox.width - 2 * _SIDES * fig.dpi
    for columns in range(min(len(handles), MAX_COLUMNS), 0, -1):
        legend = fig.legend(
            handles,
            labels,
            loc="outside lower center",
            ncols=columns,
            fontsize="small",
            frameon=False,
        )
        extent = legend.get_window_extent(renderer)
        if extent.width <= room or columns == 1:
            break
        legend.remove()
    grow = extent.height / fig.dpi + _GAP
    width, height = fig.get_size_inches()
    fig.set_size_inches(width, height + grow)
    setattr(legend, _GROWN, grow)
    return legend


def grown(fig: Figure) -> float:
    """The inches :func:`below` added to the figure's height for its legends."""
    return sum(getattr(legend, _GROWN, 0.0) for legend in fig.legends)
