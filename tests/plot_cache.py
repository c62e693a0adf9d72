"""Within one test process, a curve figure is rendered once per distinct input.

Most of the time in the data fixtures (scoring the demo runs again for every test of
the leak, permission-matrix and export modules) went to matplotlib drawing the very
same curves to SVG and PNG. The rendering is a pure function of the curve (and, for
the leaderboard overlays, of each run's label and curves), so the test process keeps
the first rendering and hands it out again for an equal input: the bytes are those
the first call drew, every test still scores, stores and serves its plots, and each
distinct figure is still drawn. The key holds the team colours in force, and the
points a drawing collected (the figures' CSV data) are handed out with it. The offline ``--plots`` PDF path (``collecting_pdfs``)
the PDF export (which captures the figures themselves) and the Celery worker
processes the end-to-end tests start always render.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from tasks.common import plotting
from tasks.pages import Plot, RunDetail


def install() -> None:
    """Memoise ``curve_plot`` and ``overlay_plots`` in this process (idempotent)."""
    if getattr(plotting.curve_plot, "_memoised", False):
        return
    plotting.curve_plot = _memoised_curve_plot(plotting.curve_plot)
    plotting.overlay_plots = _memoised_overlay_plots(plotting.overlay_plots)


_RENDER = plotting.render


def _drawing_pdfs() -> bool:
    """True while someone needs the figures themselves: the PDF sink, or the PDF
    export capturing the figures by replacing ``render``."""
    return plotting._pdf_sink.get() is not None or plotting.render is not _RENDER  # noqa: SLF001


def _drawn_once(cache: dict, key: tuple, draw: Callable[[], object]) -> object:  # type: ignore[type-arg]
    """``draw()`` once per key, keyed also on the team styles in force; the points
    it drew are kept with it and handed to whoever collects them (the figures' CSV
    data), as a real drawing would."""
    key = (key, tuple(sorted((plotting._styles.get() or {}).items())))  # noqa: SLF001
    if key not in cache:
        with plotting.collecting_points() as points:
            cache[key] = (draw(), dict(points))
    result, points = cache[key]
    sink = plotting._points_sink.get()  # noqa: SLF001
    if sink is not None:
        sink.update(points)
    return result


def _hashable(key: object) -> bool:
    try:
        hash(key)
    except TypeError:
        return False
    return True


def _memoised_curve_plot(draw: Callable[..., Plot]) -> Callable[..., Plot]:
    cache: dict[tuple, tuple] = {}  # type: ignore[type-arg]

    @functools.wraps(draw)
    def curve_plot(curve, *, log_x=None):  # noqa: ANN001, ANN202
        if _drawing_pdfs():
            return draw(curve, log_x=log_x)
        key = (curve, log_x)
        if not _hashable(key):
            return draw(curve, log_x=log_x)
        return _drawn_once(cache, key, lambda: draw(curve, log_x=log_x))

    curve_plot._memoised = True  # type: ignore[attr-defined]
    return curve_plot


def _memoised_overlay_plots(
    draw: Callable[[Sequence[RunDetail]], tuple[Plot, ...]],
) -> Callable[[Sequence[RunDetail]], tuple[Plot, ...]]:
    cache: dict[tuple, tuple] = {}  # type: ignore[type-arg]

    @functools.wraps(draw)
    def overlay_plots(runs):  # noqa: ANN001, ANN202
        if _drawing_pdfs():
            return draw(runs)
        # The overlays read only each run's label and curves.
        key = tuple((run.label, run.curves) for run in runs)
        if not _hashable(key):
            return draw(runs)
        return _drawn_once(cache, key, lambda: draw(runs))

    return overlay_plots
