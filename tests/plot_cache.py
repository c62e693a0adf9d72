"""Within one test process, a figure is rendered once per distinct input.

Most of the time in the data fixtures (scoring the demo runs again for every test of
the leak, permission-matrix, archive and export modules) went to matplotlib drawing
the very same figures to SVG, PNG and the phone's SVG. The rendering is a pure
function of its input, so the test process keeps the first rendering and hands it
out again for an equal input: the bytes are those the first call drew, every test
still scores, stores and serves its plots, and each distinct figure is still drawn.

- ``curve_plot`` and ``overlay_plots`` are keyed on their arguments (the curves, and
  for the leaderboard overlays each run's label and curves) and the team colours in
  force: an equal input skips building the figure too.
- ``narrow_chart.narrow_svg`` (the interval chart drawn for a phone's column, not
  through ``render``) is keyed on its arguments (the rows: names, values, colours
  and markers; the label, the confidence, whether the board is cut).
- ``render`` (every other figure: bars, histograms, interval charts, the overall
  ranking) is keyed on the figure itself: its pickled state (matplotlib pickles a
  figure whole: data, texts, colours, sizes, formatters) with the object addresses
  the transforms record taken out, plus the key and title: an equal figure built
  again in this process gets the first drawing's bytes.

- ``render_pdf`` (the PDF export of a comparison figure, the overall ranking's
  PDF: figures captured from the production code, not drawn through ``render``)
  is keyed on the figure's state as ``render`` is: the export still builds every
  figure it captures, and an equal figure's PDF comes from the first drawing (the
  archive round trip exports each figure before and after the import).

The points a drawing collected (the figures' CSV data), and the PDF when one is
collected (``collecting_pdfs``: the interval charts, the analyses), are handed out
with it. The Celery worker processes the tests start run the same memo
(``tests/worker_main.py``); those ``manage.py up`` starts, as a user starts them,
always render.

The processes of one test run share the memo (``share``): the first process makes a
folder of its own (``$EVALHUB_TEST_FIGURES``), which the xdist workers and the
Celery workers they start inherit, and a drawing is kept there as a file named by
the digest of its key's pickle. A figure the demo runs draw in every process is
drawn once per run, not once per process (a third of the suite's figure drawing
was such repeats). Two equal keys may pickle differently (an object shared twice
is pickled once): that is a drawing more, never a wrong one. The folder goes with
the process that made it.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import re
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from tasks.common import plotting
from tasks.pages import Plot, RunDetail


def install() -> None:
    """Memoise ``curve_plot``, ``overlay_plots``, ``render`` and ``render_pdf`` in
    this process (idempotent)."""
    global _RENDER  # noqa: PLW0603 - the render this module installed
    if getattr(plotting.curve_plot, "_memoised", False):
        return
    plotting.curve_plot = _memoised_curve_plot(plotting.curve_plot)
    plotting.overlay_plots = _memoised_overlay_plots(plotting.overlay_plots)
    plotting.render = _RENDER = _memoised_render(plotting.render)
    plotting.render_pdf = _memoised_render_pdf(plotting.render_pdf)
    from evalhub.rankings.services import narrow_chart  # no Django at import

    narrow_chart.narrow_svg = _memoised_narrow_chart(narrow_chart.narrow_svg)


_RENDER = plotting.render

#: The folder the processes of one test run keep their drawings in (``share``).
SHARED = "EVALHUB_TEST_FIGURES"


def share() -> str | None:
    """Make the run's shared folder unless a process above made it: its path to
    remove when this process ends (None: not this process's)."""
    if os.environ.get(SHARED):
        return None
    os.environ[SHARED] = folder = tempfile.mkdtemp(prefix="evalhub-figures-")
    return folder


def unshare(folder: str | None) -> None:
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
        os.environ.pop(SHARED, None)


def _shared(key: object, draw: Callable[[], object]) -> object:
    """``draw()``, or what a process of this run drew for an equal key."""
    folder = os.environ.get(SHARED)
    if not folder:
        return draw()
    try:
        digest = hashlib.sha256(pickle.dumps(key, protocol=4)).hexdigest()
    except Exception:  # noqa: BLE001 - then it is drawn here
        return draw()
    path = Path(folder) / digest
    try:
        return pickle.loads(path.read_bytes())  # noqa: S301 - this run's own files
    except (OSError, EOFError, pickle.UnpicklingError):
        pass
    value = draw()
    part = path.with_name(f"{digest}.{os.getpid()}.part")
    try:
        part.write_bytes(pickle.dumps(value, protocol=4))
        part.replace(path)  # whole, or not there
    except OSError:
        pass
    return value


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

        def drawn() -> tuple[object, dict]:  # type: ignore[type-arg]
            with plotting.collecting_points() as points:
                return draw(), dict(points)

        cache[key] = _shared(key, drawn)
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


def _memoised_narrow_chart(draw: Callable[..., bytes]) -> Callable[..., bytes]:
    cache: dict[tuple, tuple] = {}  # type: ignore[type-arg]

    @functools.wraps(draw)
    def narrow_svg(rows, *, metric_label, confidence, cut):  # noqa: ANN001, ANN202
        def drawn() -> bytes:
            return draw(rows, metric_label=metric_label, confidence=confidence, cut=cut)

        key = (tuple(rows), metric_label, confidence, cut)
        if not _hashable(key):
            return drawn()
        return _drawn_once(cache, key, drawn)

    return narrow_svg


#: A 6-byte integer in a pickle (LONG1): an object's address, as matplotlib's
#: transforms record their parents (``id(parent)``); it differs between two equal
#: figures.
_ADDRESS = re.compile(rb"\x8a\x06[\x00-\xff]{6}")


def _fingerprint(fig: object) -> bytes | None:
    """The figure's state without object addresses; None if it cannot be pickled."""
    try:
        state = pickle.dumps(fig, protocol=4)
    except Exception:  # noqa: BLE001 - then it is drawn, as always
        return None
    return hashlib.sha256(_ADDRESS.sub(b"", state)).digest()


def _memoised_render_pdf(draw: Callable[..., bytes]) -> Callable[..., bytes]:
    cache: dict[bytes, bytes] = {}

    @functools.wraps(draw)
    def render_pdf(fig):  # noqa: ANN001, ANN202
        state = _fingerprint(fig)  # before ``render_pdf`` lays the figure out
        if state is None:
            return draw(fig)
        if state not in cache:
            cache[state] = _shared(("pdf", state), lambda: draw(fig))
        return cache[state]

    return render_pdf


def _memoised_render(draw: Callable[..., Plot]) -> Callable[..., Plot]:
    cache: dict[tuple, tuple] = {}  # type: ignore[type-arg]

    @functools.wraps(draw)
    def render(key, title, fig, *, narrow=True, only=None):  # noqa: ANN001, ANN202
        state = _fingerprint(fig)
        if state is None:
            return draw(key, title, fig, narrow=narrow, only=only)
        sink = plotting._pdf_sink.get()  # noqa: SLF001
        if sink is None:
            return _drawn_once(
                cache,
                (key, title, narrow, only, state),
                lambda: draw(key, title, fig, narrow=narrow, only=only),
            )

        def with_pdf() -> tuple[Plot, bytes | None]:
            with plotting.collecting_pdfs() as pdfs:  # this figure's PDF only
                plot = draw(key, title, fig, narrow=narrow, only=only)
            return plot, pdfs.get(key)

        key_ = ("pdf", key, title, narrow, only, state)
        plot, pdf = _drawn_once(cache, key_, with_pdf)
        if pdf is not None:
            sink[key] = pdf
        return plot

    return render
