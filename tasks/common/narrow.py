"""Every figure drawn a second time for a phone's column, where the wide figure
scaled down would make its text 5-6 px high: ``NARROW_WIDTH`` inches wide (336 CSS
px, the column of a 390 px screen), a row of more than two panels split into rows
of two, legends below the plot in one column, tick labels and legend entries
wrapped shorter (a panel whose category labels would still overlap, long run
names slanted under a comparison's bars, is labelled 1, 2, ... instead, the names
in a key under it), and no text under ``MIN_FONT`` points
(11.3 px at the size it is drawn); a figure holding a table is drawn as wide as
the table. The page shows it on small screens (``<picture>``), at least as wide as
the column, scrolling inside its box when wider; the wide figure stays the one to
download and print."""

from __future__ import annotations

import io

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.table import Table
from matplotlib.text import Text

from tasks.common import legends
from tasks.common.figure_text import (
    LiteralFormatter,
    laid_out,
    lay_out,
    protect,
    wrapped,
)

#: Inches: 336 CSS px at 96 px per inch (1 pt = 4/3 px).
NARROW_WIDTH = 3.5
#: Points: 11.3 CSS px when the figure is shown at the size it is drawn.
MIN_FONT = 8.5
#: Characters per line of a tick label, and of a legend entry (below the plot).
NARROW_WRAP = 20
LEGEND_WRAP = 40
#: Characters per line of a key under a panel (its names, numbered).
KEY_WRAP = 30
#: Panels side by side at most (a row of more is split into rows).
ROW_PANELS = 2
#: Inches per row of panels split into rows.
ROW_HEIGHT = 2.3
#: Inches per line of a legend moved below the plot.
_LINE = 0.19


def _legends_below(fig: Figure) -> int:
    """Move every legend below the plot, one entry per row; returns how many lines
    of text they take."""
    lines = 0
    found = [ax.get_legend() for ax in fig.axes] + list(fig.legends)
    for legend in found:
        if not isinstance(legend, Legend):
            continue
        handles = list(legend.legend_handles)
        labels = [t.get_text() for t in legend.get_texts()]
        legend.remove()
        if not handles:
            continue
        fig.legend(
            handles,
            labels,
            loc="outside lower center",
            ncols=1,
            fontsize=MIN_FONT,
            frameon=False,
        )
        lines += sum(1 + len(label) // LEGEND_WRAP for label in labels)
    return lines


def _widen_for_tables(fig: Figure, *, laid: bool) -> None:
    """A table (each column as wide as its text) does not fit a phone's column:
    the figure is drawn as wide as it needs, and the page lets it scroll inside
    its box rather than shrink its text."""
    tables = fig.findobj(Table)
    if not tables:
        return
    if not laid:
        lay_out(fig)
    right = max(t.get_window_extent().x1 for t in tables)
    if right > fig.bbox.x1:
        width, height = fig.get_size_inches()
        fig.set_size_inches(width + (right - fig.bbox.x1) / fig.dpi + 0.15, height)


def _row_grid(fig: Figure) -> int:
    """How many panels ``fig`` has side by side in one row of equal cells (0 for
    any other layout: one panel, panels in a column, a figure of its own grid)."""
    specs = [ax.get_subplotspec() for ax in fig.axes]
    if not specs or any(spec is None for spec in specs):
        return 0
    grid = specs[0].get_gridspec()
    if any(spec.get_gridspec() is not grid for spec in specs):
        return 0
    if grid.nrows != 1 or any(len(spec.colspan) != 1 for spec in specs):
        return 0
    return grid.ncols


def _place(fig: Figure, columns: list[int], per_row: int) -> int:
    """The panels of a one-row figure (each axes' column in it) placed ``per_row``
    to a row; returns how many rows they take."""
    rows = -(-(max(columns) + 1) // per_row)
    placed = fig.add_gridspec(rows, per_row)
    for index, ax in enumerate(fig.axes):
        column = columns[index]
        ax.set_subplotspec(placed[column // per_row, column % per_row])
        # A shared y axis is labelled at the left of each row only.
        ax.yaxis.set_tick_params(labelleft=column % per_row == 0)
    return rows


def _named_ticks(ax: Axes) -> bool:
    """Whether the panel's x ticks are names (categories, bars), not numbers: only
    those can print on top of each other once wrapped."""
    # ``protect`` (run before) wraps every formatter of given text in this one.
    return isinstance(ax.xaxis.get_major_formatter(), LiteralFormatter)


def _crowded(fig: Figure, *, laid: bool) -> list[Axes]:
    """The panels with two x tick labels on top of each other (after layout, or
    on the layout the figure has when ``laid``: nothing changed since it; a
    figure without named ticks is not laid out for it)."""
    if not any(_named_ticks(ax) for ax in fig.axes):
        return []
    if not laid:
        lay_out(fig)
    renderer = fig._get_renderer()  # noqa: SLF001
    found = []
    for ax in fig.axes:
        boxes = sorted(
            (
                t.get_window_extent(renderer)
                for t in ax.get_xticklabels()
                if t.get_text()
            ),
            key=lambda box: box.x0,
        )
        if any(a.overlaps(b) for a, b in zip(boxes, boxes[1:], strict=False)):
            found.append(ax)
    # Reading the tick labels marks the figure stale, but it is laid out as it
    # is: the save keeps this layout (``laid_out``) unless something changes next.
    fig.stale = False
    return found


def _plain_name(label: str) -> str:
    """A tick label's name as written (unwrapped, its ``$`` unescaped: the key is
    a plain-text label)."""
    return label.replace("\n", " ").replace("\\$", "$")


def _numbered(fig: Figure, *, laid: bool) -> int:
    """A panel whose category labels still print on top of each other (long run
    names under a comparison's bars, slanted) is labelled 1, 2, ... instead, the
    names in a key under it, one to a line ("1  name"); returns how many lines
    the keys take."""
    lines = 0
    for ax in _crowded(fig, laid=laid):
        ticks = [
            (x, t.get_text())
            for x, t in zip(ax.get_xticks(), ax.get_xticklabels(), strict=True)
        ]
        ticks = [(x, name) for x, name in ticks if name]
        key = [
            wrapped(f"{i}  {_plain_name(name)}", KEY_WRAP)
            for i, (_, name) in enumerate(ticks, start=1)
        ]
        ax.set_xticks(
            [x for x, _ in ticks],
            [str(i) for i in range(1, len(ticks) + 1)],
            rotation=0,
            ha="center",
        )
        above = ax.get_xlabel()
        ax.set_xlabel("\n".join(([above] if above else []) + key))
        ax.xaxis.label.set_multialignment("left")
        lines += sum(1 + k.count("\n") for k in key)
        fig.stale = True  # a new label's text does not mark it: lay it out anew
    return lines


def _panels_in_rows(fig: Figure, size: tuple[float, float]) -> bool | None:
    """Panels side by side in one row (more than ``ROW_PANELS``, such as the MT
    probe's run figure) are placed ``ROW_PANELS`` to a row, or one to a row when
    their category labels would still print on top of each other; the figure
    grows a row's height per row. Any other layout is left as it is. None when
    nothing was placed; else whether the figure is left laid out as it is (placed
    and laid out to look for crowded labels, a figure with named ticks is: the
    next measure need not lay it out again)."""
    if _row_grid(fig) <= ROW_PANELS:
        return None
    columns = [ax.get_subplotspec().colspan.start for ax in fig.axes]  # type: ignore[union-attr]
    width, extra = size
    for per_row in (ROW_PANELS, 1):
        rows = _place(fig, columns, per_row)
        fig.set_size_inches(width, ROW_HEIGHT * rows + extra)
        if not _crowded(fig, laid=False):
            break
    # Placing and sizing marked the figure stale; ``_crowded`` clears that when it
    # lays the figure out (only a figure with named ticks is).
    return not fig.stale


def narrow_svg(fig: Figure) -> bytes:
    """``fig`` drawn for a phone's column, as SVG (changes ``fig``: call it
    last)."""
    width, height = fig.get_size_inches()
    height -= legends.grown(fig)  # its legend is laid out again, below
    lines = _legends_below(fig)
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for label in axis.get_ticklabels(which="both"):
                if label.get_fontsize() < MIN_FONT:
                    ax.tick_params(labelsize=MIN_FONT)
    for text in fig.findobj(Text):
        if text.get_fontsize() < MIN_FONT:
            text.set_fontsize(MIN_FONT)
    for table in fig.findobj(Table):
        for cell in table.get_celld().values():
            if cell.get_text().get_fontsize() < MIN_FONT:
                cell.get_text().set_fontsize(MIN_FONT)
    fig.set_size_inches(
        min(width, NARROW_WIDTH), max(height * 0.85, 2.6) + lines * _LINE
    )
    # ``laid``: the figure is laid out as it is (``fit``'s last layout found
    # nothing to wrap, and nothing changed since): measured on that layout.
    laid = protect(fig, width=NARROW_WRAP, legend_width=LEGEND_WRAP)
    placed = _panels_in_rows(fig, (min(width, NARROW_WIDTH), 0.6 + lines * _LINE))
    if placed is not None:
        laid = placed
    keys = _numbered(fig, laid=laid)
    if keys:
        wide, high = fig.get_size_inches()
        fig.set_size_inches(wide, high + keys * _LINE)
        laid = False
    _widen_for_tables(fig, laid=laid)
    out = io.BytesIO()
    with laid_out(fig):
        fig.savefig(out, format="svg", metadata={"Date": None})
    return out.getvalue()
