"""Comparison figures as vector PDF, for the figure export and the overview-paper
package: re-rendered from the stored curves (the same runs and drawing code as the
stored SVG) and cached per figure until its test set's figures are refreshed. The
viewer's rules are those of ``exports.figures``."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.core.cache import cache

from evalhub.competitions import logs
from evalhub.competitions.models import TaskArtefact, TestSet, Track
from evalhub.competitions.services.boards import analyses
from evalhub.competitions.services.boards.exports import NotVisible, figure, figures
from tasks.base import Plot

COMPARE_PREFIX = analyses.COMPARE_PREFIX
log = logging.getLogger(__name__)
_capture = threading.local()
_capture_lock = threading.Lock()


@contextmanager
def _capturing_figures() -> Iterator[list[tuple[str, object]]]:
    """Collect the matplotlib figures a task type renders through
    ``tasks.common.plotting.render`` in this thread, to save them again as PDF."""
    from tasks.common import plotting

    captured: list[tuple[str, object]] = []
    with _capture_lock:
        original = plotting.render

        def render(key: str, title: str, fig, **options):  # noqa: ANN001, ANN003, ANN202
            sink = getattr(_capture, "sink", None)
            if sink is None:
                return original(key, title, fig, **options)
            sink.append((key, fig))
            return Plot(key=key, title=title, svg=b"", png=b"")  # not needed here

        plotting.render = render
        _capture.sink = captured
        try:
            yield captured
        finally:
            _capture.sink = None
            plotting.render = original


def figure_pdf(
    *, test_set: TestSet, key: str, user: object, track: Track | None = None
) -> bytes:
    """A figure of the board of ``track`` (None: of every track) as vector PDF: an
    analysis' figure as drawn with its SVG, a comparison figure re-rendered from
    the stored curves (the same runs and drawing code as its stored SVG)."""
    artefact = figure(test_set=test_set, key=key, user=user, track=track)
    if artefact.pdf:  # an analysis' figure, drawn as PDF with its SVG
        with artefact.pdf.open("rb") as fh:
            return fh.read()
    if not artefact.key.startswith(COMPARE_PREFIX):
        raise NotVisible
    pdf = cache.get(_pdf_key(artefact))
    if pdf is None:
        # Drawing one comparison figure again builds every figure of its runs
        # (``comparison_plots``): keep each of them, so that the next one asked
        # for (a reader downloading them all) is read, not drawn again.
        siblings = [
            a
            for a in TaskArtefact.objects.filter(
                test_set=test_set,
                track_id=artefact.track_id,
                key__startswith=COMPARE_PREFIX,
            ).exclude(svg="")
            if a.runs == artefact.runs
        ]
        drawn = _pdfs(test_set, siblings or [artefact], render=True) or {}
        pdf = drawn.get(artefact.key[len(COMPARE_PREFIX) :], b"")
    if not pdf:  # the figure could not be drawn again (see ``_pdfs``)
        raise NotVisible
    return pdf


def _pdf_key(artefact: TaskArtefact) -> str:
    # The stored SVG changes only when the artefact is refreshed.
    return f"exports:pdf:{artefact.pk}:{artefact.updated_at.timestamp()}"


def comparison_pdfs(
    *,
    test_set: TestSet,
    user: object,
    exclude_runs: set[int] | frozenset[int] = frozenset(),
    cached_only: bool = False,
) -> dict[str, bytes] | None:
    """Every comparison figure of the test set this user may see, as PDF (key without
    the prefix -> bytes), those not cached drawn once for all of them; a figure
    drawing one of ``exclude_runs`` is left out. ``cached_only``: ``None`` when one
    is not cached yet (``warm_comparison_pdfs`` draws them on a worker)."""
    wanted = [
        a
        for a in figures(test_set=test_set, user=user)
        if a.key.startswith(COMPARE_PREFIX)
        and not {int(pk) for pk in a.runs} & exclude_runs
    ]
    return _pdfs(test_set, wanted, render=not cached_only)


def warm_comparison_pdfs(*, test_set: TestSet) -> int:
    """Draw and cache the PDF of every comparison figure of the test set not cached
    yet (a worker job; nothing is returned to a viewer). Returns how many figures
    are cached."""
    artefacts = [
        a
        for a in test_set.task_artefacts.all()
        if a.svg and a.key.startswith(COMPARE_PREFIX) and a.track_id is None
    ]
    return len(_pdfs(test_set, artefacts, render=True) or {})


def _pdfs(
    test_set: TestSet, artefacts: list[TaskArtefact], *, render: bool
) -> dict[str, bytes] | None:
    out: dict[str, bytes] = {}
    missing = []
    for artefact in artefacts:
        pdf = cache.get(_pdf_key(artefact))
        if pdf is None:
            missing.append(artefact)
        else:
            out[artefact.key[len(COMPARE_PREFIX) :]] = pdf
    if missing and not render:
        return None
    by_runs: dict[tuple[int, ...], list[TaskArtefact]] = {}
    for artefact in missing:  # one refresh draws all its figures from the same runs
        by_runs.setdefault(tuple(int(pk) for pk in artefact.runs), []).append(artefact)
    for group in by_runs.values():
        try:
            drawn = _render_comparison_pdfs(test_set=test_set, artefact=group[0])
        except logs.FATAL:
            raise
        except Exception:  # noqa: BLE001 - the other figures are still drawn
            logs.error_without_text(log, "PDF of figures of test set %s", test_set.pk)
            drawn = {}
        for artefact in group:
            key = artefact.key[len(COMPARE_PREFIX) :]
            # b"": this figure cannot be drawn again; not retried until refreshed.
            out[key] = drawn.get(key, b"")
            cache.set(_pdf_key(artefact), out[key], timeout=7 * 24 * 3600)
    return {key: out[key] for key in sorted(out) if out[key]}


def _render_comparison_pdfs(
    *, test_set: TestSet, artefact: TaskArtefact
) -> dict[str, bytes]:
    """Every comparison figure drawn from ``artefact``'s runs, as PDF, by key."""
    from tasks.common import plotting
    from tasks.common.plotting import render_pdf

    # The runs the stored figure draws, in its order (a run that broke the drawing
    # was left out of it).
    evaluations = analyses.evaluations_of(test_set, [int(pk) for pk in artefact.runs])
    runs = analyses._run_details(evaluations)
    task = test_set.phase.task
    with (
        _capturing_figures() as captured,
        plotting.series_styles(analyses.styles(test_set, evaluations)),
    ):
        task.type.comparison_plots(runs, task.parsed_settings())
    return {key: render_pdf(fig) for key, fig in captured}  # type: ignore[arg-type]
