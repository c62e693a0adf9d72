"""Rendering figures to SVG + PNG with matplotlib's object API (no pyplot state, so it
is safe in worker threads). Output is deterministic: no dates, fixed SVG ids."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import io
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tasks.common import legends
from tasks.pages import Plot, RunDetail
from tasks.reports import Curve

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.text import Text

# matplotlib is imported by the first figure drawn (``_matplotlib``), not with this
# module: the web processes and commands that import it (through the jobs they
# queue) never draw, and importing matplotlib is a quarter of their start.


@functools.cache
def drawing_digest() -> str:
    """A digest of the code that draws: every source file of ``tasks/`` and
    matplotlib's version. A figure kept because its inputs did not change is drawn
    again when this changes (a release that draws differently)."""
    import hashlib
    from importlib.metadata import version
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256(version("matplotlib").encode())
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@functools.cache
def _matplotlib() -> None:
    """Import and set up matplotlib, once per process."""
    import matplotlib

    from tasks.common import font_lookup, fonts

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "evalhub"
    matplotlib.rcParams["svg.fonttype"] = "path"
    fonts.use_fallbacks()  # names in any script (``fonts.py``)
    font_lookup.install()  # answers kept under a cheaper key (``font_lookup.py``)
    matplotlib.rcParams["axes.prop_cycle"] = matplotlib.cycler(color=PALETTE)
    # Labels carry user text (team and method names): plain text, never mathtext.
    # That is decided where each text is drawn (``protect``, on every figure
    # ``render`` and ``render_pdf`` save), not globally: matplotlib's own tick
    # labels stay numbers.


#: Okabe & Ito's colour-blind-safe palette ("Color Universal Design", 2008), without
#: its yellow (too light on white) and black (the colour of text and axes).
PALETTE: tuple[str, ...] = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#D55E00",
    "#56B4E9",
    "#CC79A7",
)
#: What tells apart two series of the same colour: the n-th round through the palette
#: (series n * len(PALETTE) + i) draws its lines with the n-th dash pattern, its points
#: with the n-th marker and its bars with the n-th hatch.
DASHES: tuple[str, ...] = ("-", "--", ":", "-.")
MARKERS: tuple[str, ...] = ("o", "s", "^", "D")
HATCHES: tuple[str, ...] = ("", "//", "..", "xx")


@dataclass(frozen=True, order=True, slots=True)
class SeriesStyle:
    """How one series (a team's runs) is drawn: a palette colour, and past the
    palette's length a dash pattern, marker and hatch of its own."""

    colour: str
    round: int = 0

    @property
    def linestyle(self) -> str:
        return DASHES[self.round % len(DASHES)]

    @property
    def marker(self) -> str:
        return MARKERS[self.round % len(MARKERS)]

    @property
    def hatch(self) -> str:
        return HATCHES[self.round % len(HATCHES)]


def nth_style(index: int) -> SeriesStyle:
    """The ``index``-th style: colours first, then colours with the next dashes,
    markers and hatches (``len(PALETTE) * len(DASHES)`` distinct styles)."""
    return SeriesStyle(PALETTE[index % len(PALETTE)], index // len(PALETTE))


#: Set by :func:`series_styles`: series label (a run's label) -> its style.
_styles: contextvars.ContextVar[Mapping[str, SeriesStyle] | None] = (
    contextvars.ContextVar("series_styles", default=None)
)


@contextlib.contextmanager
def series_styles(styles: Mapping[str, SeriesStyle]) -> Iterator[None]:
    """Draw the figures rendered inside the block with these styles per series
    label (the platform passes one style per team, the same in every figure of a
    phase); a label not in it, or no block at all (the offline ``--plots``), takes
    the styles in drawing order."""
    token = _styles.set(dict(styles))
    try:
        yield
    finally:
        _styles.reset(token)


#: Put before a user's label that starts with "_": matplotlib leaves such labels out of
#: legends (its mark for helper artists), and a team name is plain text.
_KEEP = "\u200b"


def legend_label(text: str) -> str:
    """``text`` as a legend label that matplotlib shows as it is."""
    return _KEEP + text if text.startswith("_") else text


def style(label: str, index: int) -> SeriesStyle:
    """The style of the series ``label``, drawn as the ``index``-th series."""
    chosen = (_styles.get() or {}).get(label)
    return chosen or nth_style(index)


def new_figure(width: float = 6.4, height: float = 4.0) -> Figure:
    _matplotlib()
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    return fig


#: Set by :func:`collecting_pdfs`: figure key -> PDF bytes of every figure rendered.
_pdf_sink: contextvars.ContextVar[dict[str, bytes] | None] = contextvars.ContextVar(
    "pdf_sink", default=None
)


@contextlib.contextmanager
def collecting_pdfs() -> Iterator[dict[str, bytes]]:
    """Also render every figure drawn inside the block as vector PDF (the offline
    ``--plots``), keyed like the figures."""
    sink: dict[str, bytes] = {}
    token = _pdf_sink.set(sink)
    try:
        yield sink
    finally:
        _pdf_sink.reset(token)


#: Set by :func:`collecting_points`: figure key -> the points it draws.
_points_sink: contextvars.ContextVar[dict[str, list[Point]] | None] = (
    contextvars.ContextVar("points_sink", default=None)
)

#: One drawn point: (panel title, series label, x, y); x is the category's label
#: for bars, y is None where the value is not finite.
Point = tuple[str, str, float | str | None, float | None]
POINT_COLUMNS = ("panel", "series", "x", "y")


@contextlib.contextmanager
def collecting_points() -> Iterator[dict[str, list[Point]]]:
    """Also collect the points of every figure drawn inside the block (its data
    as a table), keyed like the figures."""
    sink: dict[str, list[Point]] = {}
    token = _points_sink.set(sink)
    try:
        yield sink
    finally:
        _points_sink.reset(token)


def _number(value: object) -> float | None:
    number = float(value)  # type: ignore[arg-type]
    return number if math.isfinite(number) else None


def figure_points(fig: Figure) -> list[Point]:
    """The points a figure draws: each labelled line's (x, y) and each bar's
    (category, height), panel by panel; guides (unlabelled lines) left out."""
    from matplotlib.container import BarContainer

    points: list[Point] = []
    for ax in fig.axes:
        panel = ax.get_title()
        for line in ax.get_lines():
            label = str(line.get_label())
            if label.startswith("_"):
                continue
            label = label.removeprefix(_KEEP)
            for x, y in zip(line.get_xdata(), line.get_ydata(), strict=True):
                points.append((panel, label, _number(x), _number(y)))
        ticks = [(float(t), lbl.get_text()) for t, lbl in _ticks(ax)]
        for container in ax.containers:
            if not isinstance(container, BarContainer):
                continue
            label = str(container.get_label())
            label = "" if label.startswith("_") else label.removeprefix(_KEEP)
            horizontal = container.orientation == "horizontal"
            for patch in container.patches:
                centre = (
                    patch.get_y() + patch.get_height() / 2
                    if horizontal
                    else (patch.get_x() + patch.get_width() / 2)
                )
                value = patch.get_width() if horizontal else patch.get_height()
                category = (
                    min(ticks, key=lambda t: abs(t[0] - centre))[1] if ticks else None
                )
                points.append(
                    (panel, label, category or _number(centre), _number(value))
                )
    return points


def _ticks(ax: Axes) -> list[tuple[float, Text]]:
    """The category axis' ticks of a bar chart (x, or y for horizontal bars)."""
    from matplotlib.category import StrCategoryLocator
    from matplotlib.container import BarContainer
    from matplotlib.text import Text
    from matplotlib.ticker import FixedLocator

    from tasks.common.figure_text import LiteralFormatter

    horizontal = any(
        isinstance(c, BarContainer) and c.orientation == "horizontal"
        for c in ax.containers
    )
    axis = ax.yaxis if horizontal else ax.xaxis
    # Only named categories; a numeric axis' ticks are not the bars' categories.
    if not isinstance(axis.get_major_locator(), FixedLocator | StrCategoryLocator):
        return []
    locs = list(axis.get_ticklocs())
    formatter = axis.get_major_formatter()
    if isinstance(formatter, LiteralFormatter):  # as given: not escaped nor wrapped
        formatter.inner.set_locs(locs)
        labels = [str(s) for s in formatter.inner.format_ticks(locs)]
    else:
        labels = [lbl.get_text() for lbl in axis.get_ticklabels()]
    return [
        (t, Text(text=label)) for t, label in zip(locs, labels, strict=False) if label
    ]


#: The forms ``render`` draws: the SVG, the PNG and the phone's SVG.
FORMS = ("svg", "png", "narrow.svg")


def render(
    key: str,
    title: str,
    fig: Figure,
    *,
    narrow: bool = True,
    only: str | None = None,
) -> Plot:
    """The figure as SVG and PNG (and PDF, and its points, when collected), and
    drawn again for a phone's column (``narrow``; False: a caller that draws its
    own phone figure, whose ``svg_narrow`` is then b""). ``only`` (one of
    ``FORMS``): that form alone, the others b"" (a figure drawn for one request
    that asks for one form)."""
    from tasks.common.figure_text import laid_out, protect
    from tasks.common.narrow import narrow_svg

    if only is not None and only not in FORMS:
        raise ValueError(f"no such form: {only!r}")
    protect(fig)
    svg, png = io.BytesIO(), io.BytesIO()
    with laid_out(fig):  # one layout for the PDF, the SVG and the PNG
        sink = _pdf_sink.get()
        if sink is not None:
            sink[key] = _pdf(fig)  # protected and laid out above
        points = _points_sink.get()
        if points is not None:
            points[key] = figure_points(fig)
        if only in (None, "svg"):
            fig.savefig(svg, format="svg", metadata={"Date": None})
        if only in (None, "png"):
            fig.savefig(png, format="png", dpi=110, metadata={"Software": None})
    phone = narrow and only in (None, "narrow.svg")
    return Plot(
        key=key,
        title=title,
        svg=svg.getvalue(),
        png=png.getvalue(),
        svg_narrow=narrow_svg(fig) if phone else b"",  # last: it changes the figure
    )


def render_pdf(fig: Figure) -> bytes:
    from tasks.common.figure_text import laid_out, protect

    protect(fig)
    with laid_out(fig):  # not laid out again when ``protect`` just did
        return _pdf(fig)


def _pdf(fig: Figure) -> bytes:
    """The PDF of a figure already protected and laid out (``render`` does not
    protect and measure it a second time: without its layout engine, measuring
    it would draw it)."""
    pdf = io.BytesIO()
    fig.savefig(pdf, format="pdf", metadata={"CreationDate": None, "ModDate": None})
    return pdf.getvalue()


def curve_plot(curve: Curve, *, log_x: bool | None = None) -> Plot:
    fig = new_figure()
    ax = fig.add_subplot()
    for label, ys in curve.series:
        ax.plot(curve.x, ys, label=label, linewidth=1.4)
    use_log = curve.log_x if log_x is None else log_x
    if use_log:
        ax.set_xscale("log")
    if curve.marker_x is not None:
        ax.axvline(curve.marker_x, color="0.4", linestyle="--", linewidth=1)
    ax.set_xlabel(curve.x_label)
    ax.set_ylabel(curve.y_label)
    ax.set_title(curve.title)
    ax.grid(True, alpha=0.3)
    if len(curve.series) > 1:
        legends.below(fig)
    key = curve.key + ("_logx" if use_log and not curve.log_x else "")
    return render(key, curve.title, fig)


def overlay_plots(runs: Sequence[RunDetail]) -> tuple[Plot, ...]:
    """For every (curve key, series label): one chart with each run's line."""
    if not runs:
        return ()
    plots: list[Plot] = []
    first = runs[0].curves
    for template in first:
        for s_index, (s_label, _) in enumerate(template.series):
            fig = new_figure()
            ax = fig.add_subplot()
            for r_index, run in enumerate(runs):
                curve = next((c for c in run.curves if c.key == template.key), None)
                if curve is None or s_index >= len(curve.series):
                    continue
                ax.plot(
                    curve.x,
                    curve.series[s_index][1],
                    label=legend_label(run.label),
                    linewidth=1.2,
                    color=(look := style(run.label, r_index)).colour,
                    linestyle=look.linestyle,
                    marker=look.marker,
                    markersize=4,
                    # a few marks per line, each run's at other points
                    markevery=(r_index % 4, max(1, len(curve.x) // 8)),
                )
            if template.log_x:
                ax.set_xscale("log")
            if template.marker_x is not None:
                ax.axvline(template.marker_x, color="0.4", linestyle="--", linewidth=1)
            title = (
                f"{template.title}: {s_label}"
                if len(template.series) > 1
                else template.title
            )
            ax.set_title(title)
            ax.set_xlabel(template.x_label)
            ax.set_ylabel(s_label)
            ax.grid(True, alpha=0.3)
            legends.below(fig)
            key = (
                f"{template.key}_{_slug(s_label)}"
                if len(template.series) > 1
                else template.key
            )
            plots.append(render(key, title, fig))
    return tuple(plots)


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in text.lower()).strip("_")
