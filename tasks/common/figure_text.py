"""Text in figures: user text (team, method and track names, titles built from them)
is drawn as it is written, never read as mathtext; matplotlib's own tick labels are
plain numbers ("1", "10", "100" on a log axis, not ``$\\mathdefault{10^{2}}$``).

Matplotlib reads a string with a pair of unescaped ``$`` as mathtext unless the
artist's ``parse_math`` is off. Switching it off globally also turns the mathtext the
log formatter writes into raw text on every log-x figure, so it is decided per
artist instead, in :func:`protect`, which ``plotting.render`` and
``plotting.render_pdf`` call on every figure before it is saved:

- every text the figure holds (titles, axis labels, legend entries, annotations,
  table cells, the figure's own texts) is set with ``parse_math`` off;
- tick labels are made anew by the axis' formatter at each draw (a tick created
  then does not inherit ``parse_math``), so the formatters that label ticks with
  given text (fixed labels, categories: team names) are wrapped to escape every
  ``$`` (``\\$``, which matplotlib draws as a plain dollar sign);
- the formatters that write mathtext (the log axes' default, ``ScalarFormatter``
  with ``useMathText``) are replaced by plain-number ones.

Names are never cut: a long tick label or legend entry is wrapped at ``width``
characters, a title or axis label at the figure's width (``fit``).
"""

from __future__ import annotations

import contextlib
import textwrap
import warnings
from collections.abc import Iterator

from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.category import StrCategoryFormatter
from matplotlib.figure import Figure
from matplotlib.layout_engine import LayoutEngine
from matplotlib.legend import Legend
from matplotlib.table import Table
from matplotlib.text import Text
from matplotlib.ticker import (
    FixedFormatter,
    Formatter,
    FuncFormatter,
    LogFormatter,
    ScalarFormatter,
    StrMethodFormatter,
)


def escape(text: str) -> str:
    """``text`` as matplotlib draws it literally with math parsing on.

    >>> escape("$x^2$ costs $5")
    '\\\\$x^2\\\\$ costs \\\\$5'
    """
    return text.replace("$", r"\$")


#: The longest line of a tick label or legend entry (a team's name), in characters.
WRAP = 32


def wrapped(text: str, width: int = WRAP) -> str:
    """``text`` in lines of at most ``width`` characters (at spaces; a longer word
    is split), never shortened; a text that fits is returned as it is.

    >>> wrapped("Université de Montréal · ranked extractor", 24)
    'Université de Montréal ·\\nranked extractor'
    """
    if len(text) <= width and "\n" not in text:
        return text
    lines = textwrap.wrap(text, width, break_on_hyphens=False)
    return "\n".join(lines) if lines else text


class LiteralFormatter(Formatter):
    """Another formatter's labels, each ``$`` escaped and wrapped at ``width``
    characters: given text (a team's name as a category or fixed tick label) is
    drawn as written, whole."""

    def __init__(self, inner: Formatter, width: int = WRAP) -> None:
        self.inner = inner
        self.width = width

    def set_axis(self, axis) -> None:  # type: ignore[no-untyped-def]  # noqa: ANN001
        super().set_axis(axis)
        self.inner.set_axis(axis)

    def __call__(self, x: float, pos: int | None = None) -> str:
        return escape(wrapped(str(self.inner(x, pos)), self.width))

    def format_ticks(self, values) -> list[str]:  # type: ignore[no-untyped-def]  # noqa: ANN001
        return [
            escape(wrapped(str(s), self.width)) for s in self.inner.format_ticks(values)
        ]

    def set_locs(self, locs) -> None:  # type: ignore[no-untyped-def]  # noqa: ANN001
        self.inner.set_locs(locs)

    def get_offset(self) -> str:
        return escape(str(self.inner.get_offset()))


class PlainLogFormatter(LogFormatter):
    """A log axis' labels as plain numbers: 0.01, 0.1, 1, 10, 100, 1000, 10000,
    1e+05 (which ticks are labelled is the default's rule)."""

    def _num_to_string(self, x: float, vmin: float, vmax: float) -> str:
        return f"{x:g}"


#: Formatters whose labels are given text rather than numbers.
_GIVEN_TEXT = (FixedFormatter, StrCategoryFormatter, FuncFormatter, StrMethodFormatter)


def _plain(formatter: Formatter, width: int) -> Formatter:
    """``formatter`` with user text escaped and without mathtext."""
    if isinstance(formatter, LiteralFormatter):
        formatter.width = width
        return formatter
    if isinstance(formatter, PlainLogFormatter):
        return formatter
    if isinstance(formatter, LogFormatter):  # the default writes 10^{n} as mathtext
        plain = PlainLogFormatter(
            base=formatter._base,  # noqa: SLF001
            labelOnlyBase=formatter.labelOnlyBase,
            minor_thresholds=formatter.minor_thresholds,
            linthresh=formatter._linthresh,  # noqa: SLF001
        )
        return plain
    if isinstance(formatter, ScalarFormatter):
        formatter.set_useMathText(False)
        return formatter
    if isinstance(formatter, _GIVEN_TEXT):
        return LiteralFormatter(formatter, width)
    return formatter


def _labels(fig: Figure) -> list[Text]:
    """The titles and axis labels of ``fig``."""
    found = [fig._suptitle] if fig._suptitle is not None else []  # noqa: SLF001
    for ax in fig.axes:
        found += [ax.title, ax._left_title, ax._right_title]  # noqa: SLF001
        found += [ax.xaxis.label, ax.yaxis.label]
    return [t for t in found if t.get_text() and t.get_visible()]


def lay_out(fig: Figure) -> None:
    """Lay ``fig`` out without drawing it, its titles and axis labels placed as a
    draw would place them, to be measured (a figure too small for its text is
    measured all the same: that is what is being repaired). The layout engine
    and the placing only: a draw without rendering costs as much again."""
    engine = fig.get_layout_engine()
    if engine is None:
        fig.draw_without_rendering()
        return
    _run(engine, fig)
    renderer = fig._get_renderer()  # noqa: SLF001
    for ax in fig.axes:
        ax._update_title_position(renderer)  # noqa: SLF001
        for axis in (ax.xaxis, ax.yaxis):
            axis._update_label_position(renderer)  # noqa: SLF001
    fig.stale = False  # laid out since it last changed


def _run(engine: LayoutEngine, fig: Figure) -> None:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "constrained_layout not applied")
        engine.execute(fig)


@contextlib.contextmanager
def laid_out(fig: Figure) -> Iterator[Figure]:
    """``fig`` laid out once, and that layout kept for every save in the block.
    ``savefig`` lays a figure with a layout engine out again for each format it
    writes (a draw of its own before the real one); the SVG, the PNG and the PDF
    of one figure share one layout instead (the engine run alone, not a draw), and
    a figure ``fit`` has just laid out is not laid out again. The engine is back
    afterwards (the narrow figure is laid out anew at its own size)."""
    engine = fig.get_layout_engine()
    if fig.stale and engine is not None:  # changed since ``fit`` laid it out, if it did
        # The engine alone: the axes' places are what the saves need (each save
        # places titles, labels and ticks as it draws them).
        _run(engine, fig)
    fig.set_layout_engine(None)  # None, not "none": "none" still draws first
    try:
        yield fig
    finally:
        fig.set_layout_engine(engine)


#: A label no wider than this share of the figure fits wherever it is centred.
_SURE = 0.55


def _surely_fit(fig: Figure) -> bool:
    renderer = RendererAgg(1, 1, fig.dpi)  # measures text, draws nothing
    for text in _labels(fig):
        vertical = abs(text.get_rotation() % 180 - 90) < 1
        room = fig.bbox.height if vertical else fig.bbox.width
        widest = max(
            renderer.get_text_width_height_descent(
                line, text.get_fontproperties(), ismath=False
            )[0]
            for line in text.get_text().split("\n")
        )
        if widest > _SURE * room:
            return False
    return True


def fit(fig: Figure) -> bool:
    """Wrap each title and axis label that runs off the figure (measured on the
    laid-out figure: a title is centred over its axes, not the figure), at the
    room it has; the layout follows, so it is measured again (at most 3 times).
    Labels well within the figure (the usual case) skip the layout: it costs as
    much as drawing the figure. True when the figure is left laid out as it is
    (its last layout found nothing to wrap): a caller that measures it next,
    having changed nothing, need not lay it out again. (A title's or label's new
    text does not mark the figure stale: only this function knows it changed.)"""
    if _surely_fit(fig):
        return False
    for _ in range(3):
        lay_out(fig)
        box = fig.bbox
        changed = False
        for text in _labels(fig):
            extent = text.get_window_extent()
            vertical = abs(text.get_rotation() % 180 - 90) < 1
            low, high = (extent.y0, extent.y1) if vertical else (extent.x0, extent.x1)
            lo, hi = (box.y0, box.y1) if vertical else (box.x0, box.x1)
            if low >= lo - 0.5 and high <= hi + 0.5:
                continue
            centre = (low + high) / 2
            room = 2 * min(centre - lo, hi - centre) - 4
            longest = max(len(line) for line in text.get_text().split("\n"))
            chars = int(longest * max(room, 1) / max(high - low, 1))
            text.set_text(wrapped(text.get_text().replace("\n", " "), max(chars, 8)))
            changed = True
        if not changed:
            return True
    return False


def protect(fig: Figure, width: int = WRAP, legend_width: int = WRAP) -> bool:
    """Make every text of ``fig`` plain text (see the module's docstring), with
    tick labels wrapped at ``width`` characters, legend entries at
    ``legend_width``, and titles and axis labels at the figure's width; safe to
    call more than once. The titles and labels are fitted last, measured on the
    figure as it is drawn (legend entries and tick labels wrapped, no mathtext):
    the layout ``fit`` leaves is then the one the saves use, not done again.
    Returns ``fit``'s answer: whether the figure is left laid out as it is."""
    # One walk over the figure's artists (each walk lays out every axis' ticks):
    # wrapping and formatters change texts, not which artists there are.
    artists = fig.findobj()
    for legend in (a for a in artists if isinstance(a, Legend)):
        for text in legend.get_texts():
            text.set_text(wrapped(text.get_text(), legend_width))
    tick_labels: set[int] = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for which in ("major", "minor"):
                get = getattr(axis, f"get_{which}_formatter")
                set_ = getattr(axis, f"set_{which}_formatter")
                formatter = get()
                plain = _plain(formatter, width)
                if plain is not formatter:
                    set_(plain)
            for tick in [*axis.majorTicks, *axis.minorTicks]:
                tick_labels.update((id(tick.label1), id(tick.label2)))
    texts = [a for a in artists if isinstance(a, Text)]
    for table in (a for a in artists if isinstance(a, Table)):
        # a cell's text is not among its children
        texts += [cell.get_text() for cell in table.get_celld().values()]
    for text in texts:
        if id(text) not in tick_labels:
            text.set_parse_math(False)  # type: ignore[attr-defined]
    return fit(fig)
