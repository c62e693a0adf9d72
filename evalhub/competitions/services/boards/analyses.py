"""Task-level results for a test set, refreshed after each scored run and after every
change of its public board: comparison plots over the public board's best runs and
the task type's cross-run analysis (e.g. difficulty bins) over the public board's
runs (baselines aside), for the board of every track together and for each
track's board (``TaskArtefact.track``). Each stored artefact records the runs it
was drawn from (``TaskArtefact.runs``); it is served only while they are all on
its board (``access.can_see_task_artefact``), so nothing a board no longer shows
is drawn. A section (comparison figures; the analysis and its figures) is drawn
again only if what it is drawn from changed (``inputs_digest``), and a refresh that
stores nothing new leaves the board's version alone (nothing to render ahead)."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from typing import TypeVar

from django.core.files.base import ContentFile
from django.db import transaction

from evalhub.competitions import logs
from evalhub.competitions.finite import check_json
from evalhub.competitions.models import (
    Evaluation,
    Submission,
    TaskArtefact,
    TestSet,
    Track,
)
from evalhub.competitions.services.boards import (
    boardcache,
    leaderboard,
    refreshes,
    team_colours,
)
from evalhub.competitions.services.data import taskdata, tracks
from tasks.base import Analysis, Curve, Plot, RunDetail
from tasks.common import plotting

MAX_RUNS_IN_PLOTS = 12
COMPARE_PREFIX = "compare-"
T = TypeVar("T")
log = logging.getLogger(__name__)


def run_label(sub: Submission) -> str:
    """A run as its figures' legends and the bins table name it: "run #3", a run
    number, never to be read as a rank."""
    return f"{sub.team.name}: {sub.method_name} (run #{sub.pk})"


def styles(
    test_set: TestSet, evaluations: list[Evaluation]
) -> dict[str, plotting.SeriesStyle]:
    """Each run's label -> its team's style (see ``team_colours``)."""
    return team_colours.by_label(
        task=test_set.phase.task,
        runs=[(run_label(ev.submission), ev.submission.team_id) for ev in evaluations],
    )


def _metrics(ev: Evaluation) -> dict[str, float | None]:
    return {
        s.metric: s.value
        for s in ev.submission.scores.all()
        if s.test_set_id == ev.test_set_id
    }


def _run_detail(ev: Evaluation) -> RunDetail:
    return RunDetail(
        shown=True,  # every run analysed is on the public board
        label=run_label(ev.submission),
        detail=ev.detail,
        curves=tuple(Curve.from_json(c) for c in ev.curves),
        metrics=_metrics(ev),
    )


def evaluations_of(test_set: TestSet, runs: list[int]) -> list[Evaluation]:
    """The evaluations of ``runs`` on the test set, in the order of ``runs`` (a run
    without one is left out)."""
    by_id = {
        ev.submission_id: ev
        for ev in Evaluation.objects.filter(test_set=test_set, submission_id__in=runs)
        .select_related("submission__team")
        .prefetch_related("submission__scores")
    }
    return [by_id[pk] for pk in runs if pk in by_id]


def _run_details(evaluations: list[Evaluation]) -> list[RunDetail]:
    return [_run_detail(ev) for ev in evaluations]


def _isolated(
    build: Callable[[list[RunDetail]], T],
    evaluations: list[Evaluation],
    what: str,
) -> tuple[T, list[int]] | None:
    """``build`` over every run's detail, and the runs it was built from. A run
    whose stored outcome breaks it is left out (found by building from each run
    alone, only after the whole failed) and logged; None if it fails even then,
    so the section's previous artefacts are kept."""
    runs: list[tuple[int, RunDetail]] = []
    for ev in evaluations:
        try:
            runs.append((ev.submission_id, _run_detail(ev)))
        except logs.FATAL:
            raise
        except Exception:  # noqa: BLE001 - one run's bad outcome stops nothing else
            logs.error_without_text(
                log, "%s: run %s left out (unreadable)", what, ev.submission_id
            )
    try:
        return build([d for _, d in runs]), [pk for pk, _ in runs]
    except logs.FATAL:
        raise
    except Exception:  # noqa: BLE001
        logs.error_without_text(log, "%s failed; finding the run", what)
    good = []
    for pk, detail in runs:
        try:
            build([detail])
        except logs.FATAL:
            raise
        except Exception:  # noqa: BLE001
            log.warning("%s: run %s left out (it breaks the drawing)", what, pk)
        else:
            good.append((pk, detail))
    try:
        return build([d for _, d in good]), [pk for pk, _ in good]
    except logs.FATAL:
        raise
    except Exception:  # noqa: BLE001
        logs.error_without_text(log, "%s failed, kept as it was", what)
        return None


def _finite(analysis: Analysis | None) -> Analysis | None:
    """The analysis, if every number in it is finite (see ``finite.py``)."""
    if analysis is not None:
        check_json({**analysis.public, **analysis.private}, "analysis")
    return analysis


def refresh(*, test_set_id: int) -> list[str]:
    """Recompute and store the test set's task artefacts (those of the board of
    every track, and in a phase with tracks each track's own, drawn from its runs
    only), then invalidate the leaderboard page that shows them; returns the keys
    of the first. Coalesced like the
    statistics (``refreshes.turn``): [] if another refresh of the test set runs."""
    with refreshes.turn(kind=refreshes.ANALYSES, test_set_id=test_set_id) as mine:
        if not mine:
            return []
        try:
            keys, changed = _refresh(test_set_id)
        except TestSet.DoesNotExist:  # deleted after the refresh was asked for
            log.info("analyses refresh: test set %s no longer exists", test_set_id)
            return []
    if changed:
        boardcache.invalidate(test_set_id=test_set_id, refresh_statistics=False)
    return keys


def _refresh(test_set_id: int) -> tuple[list[str], bool]:
    """Every board's artefacts: of every track together, then of each track (a
    phase without tracks has only the first); the first board's keys, and
    whether any artefact was drawn again or deleted."""
    test_set = TestSet.objects.select_related("phase__task").get(pk=test_set_id)
    ctx = taskdata.load_inputs(test_set)
    gold: list[object] = []  # loaded once, for the first board with runs
    scopes: list[Track | None] = [None, *tracks.phase_tracks(test_set.phase)]
    boards = [_refresh_board(test_set, ctx, gold, track) for track in scopes]
    return boards[0][0], any(changed for _, changed in boards)


def inputs_digest(
    test_set: TestSet,
    ctx: taskdata.Context,
    section: str,
    evaluations: list[Evaluation],
    drawn_styles: dict[str, plotting.SeriesStyle],
) -> str:
    """A digest of everything a section's drawing reads: the drawing code
    (``plotting.drawing_digest``), the task type and its version, the settings, the
    test data's version, and each run's label, style, stored outcome, curves and
    scores, in order. Equal digests draw equal artefacts (the drawing is
    deterministic, see ``tasks.common.plotting``)."""
    runs = [
        (ev.submission_id, run_label(ev.submission), ev.detail, ev.curves, _metrics(ev))
        for ev in evaluations
    ]
    task_type = ctx.task_type
    text = json.dumps(
        [section, plotting.drawing_digest(), task_type.slug, task_type.version]
        + [test_set.gold_version]
        + [repr(ctx.settings), drawn_styles, runs],
        sort_keys=True,
        default=repr,
    )
    return hashlib.sha256(text.encode()).hexdigest()


def _unchanged(
    stored: list[TaskArtefact], prefix: str, digest: str, keys: list[str]
) -> bool:
    """The section's artefacts (keys starting with ``prefix``) were drawn from
    ``digest``: they are kept (their keys added to ``keys``)."""
    section = [a for a in stored if a.key.startswith(prefix)]
    if not section or any(a.inputs_digest != digest for a in section):
        return False
    keys.extend(a.key for a in section)
    return True


def _refresh_board(
    test_set: TestSet,
    ctx: taskdata.Context,
    gold: list[object],
    track: Track | None,
) -> tuple[list[str], bool]:
    """The artefacts of one board (``track``; None: every track together), drawn
    from that board's runs only, each section only if its inputs changed;
    returns their keys (sorted), and whether any was drawn again or deleted."""
    board = leaderboard.compute(test_set=test_set, track=track)
    top = evaluations_of(
        test_set, [row.submission_id for row in board.rows[:MAX_RUNS_IN_PLOTS]]
    )
    stored = list(
        TaskArtefact.objects.filter(test_set=test_set, track=track).only(
            "key", "inputs_digest"
        )
    )
    keys: list[str] = []
    kept: list[str] = []  # sections that failed keep their previous artefacts
    saved = 0
    where = f"test set {test_set.pk}" + ("" if track is None else f" track {track.pk}")
    top_styles = styles(test_set, top)
    compare_digest = inputs_digest(test_set, ctx, COMPARE_PREFIX, top, top_styles)
    if not _unchanged(stored, COMPARE_PREFIX, compare_digest, keys):
        with (
            plotting.series_styles(top_styles),
            plotting.collecting_points() as points,
        ):
            compared = _isolated(
                lambda runs: ctx.task_type.comparison_plots(runs, ctx.settings),
                top,
                f"comparison plots of {where}",
            )
        if compared is None:
            kept.append(COMPARE_PREFIX)
        else:
            plots, drawn = compared
            for plot in plots:
                saved += 1
                keys.append(
                    _save(
                        test_set,
                        track,
                        f"{COMPARE_PREFIX}{plot.key}",
                        plot,
                        public=_points(points, plot),
                        runs=drawn,
                        private={},
                        organiser_only=False,
                        inputs_digest=compare_digest,
                    )
                )

    # Aggregates over the public board's runs only: a withheld or hidden run's
    # numbers never enter them, not even as bin sizes (its found pairs would be
    # the difference between the bins and the shown runs' counts).
    all_scored = evaluations_of(
        test_set,
        sorted(row.submission_id for row in board.rows if not row.is_baseline),
    )
    all_styles = styles(test_set, all_scored)
    analysis_digest = inputs_digest(test_set, ctx, "analysis", all_scored, all_styles)
    if all_scored and not _unchanged(stored, "analysis", analysis_digest, keys):
        if not gold:
            gold.append(taskdata.load_gold(test_set))
        with (
            plotting.series_styles(all_styles),
            plotting.collecting_points() as points,
            plotting.collecting_pdfs() as pdfs,
        ):
            analysed = _isolated(
                lambda runs: _finite(
                    ctx.task_type.analyse(runs, gold[0], ctx.settings)
                ),
                all_scored,
                f"analysis of {where}",
            )
        if analysed is None:
            kept.append("analysis")
        elif analysed[0] is not None:
            analysis, used = analysed
            saved += 1 + len(analysis.plots)
            keys.append(
                _save(
                    test_set,
                    track,
                    "analysis",
                    None,
                    public=dict(analysis.public),
                    private=dict(analysis.private),
                    organiser_only=False,
                    runs=used,
                    inputs_digest=analysis_digest,
                )
            )
            for plot in analysis.plots:
                keys.append(
                    _save(
                        test_set,
                        track,
                        f"analysis-{plot.key}",
                        plot,
                        public=_points(points, plot),
                        runs=used,
                        private={},
                        organiser_only=False,
                        pdf=pdfs.get(plot.key),
                        inputs_digest=analysis_digest,
                    )
                )
    with transaction.atomic():
        stale = TaskArtefact.objects.filter(test_set=test_set, track=track).exclude(
            key__in=keys
        )
        for prefix in kept:
            stale = stale.exclude(key__startswith=prefix)
        for artefact in stale:
            _delete_files(artefact)
        deleted, _ = stale.delete()
    return sorted(keys), bool(saved or deleted)


def _points(points: dict[str, list[plotting.Point]], plot: Plot) -> dict:  # type: ignore[type-arg]
    """A figure's stored data: the points it draws (its CSV, see ``figures``)."""
    return {"points": [list(p) for p in points.get(plot.key, [])]}


def _save(
    test_set: TestSet,
    track: Track | None,
    key: str,
    plot: Plot | None,
    *,
    public: dict,
    private: dict,
    organiser_only: bool,
    runs: list[int] | None = None,
    pdf: bytes | None = None,
    inputs_digest: str = "",
) -> str:  # type: ignore[type-arg]
    artefact, _ = TaskArtefact.objects.get_or_create(
        test_set=test_set, track=track, key=key[:100], defaults={"title": key}
    )
    _delete_files(artefact)
    artefact.title = plot.title if plot else "Analysis"
    artefact.public_data = public
    artefact.private_data = private
    artefact.organiser_only = organiser_only
    artefact.runs = runs or []
    artefact.inputs_digest = inputs_digest
    if plot is not None:
        artefact.svg.save(f"{artefact.key}.svg", ContentFile(plot.svg), save=False)
        artefact.png.save(f"{artefact.key}.png", ContentFile(plot.png), save=False)
        if plot.svg_narrow:
            artefact.svg_narrow.save(
                f"{artefact.key}.narrow.svg",
                ContentFile(plot.svg_narrow),
                save=False,
            )
    if pdf:
        artefact.pdf.save(f"{artefact.key}.pdf", ContentFile(pdf), save=False)
    artefact.save()
    return artefact.key


def _delete_files(artefact: TaskArtefact) -> None:
    if artefact.svg:
        artefact.svg.delete(save=False)
    if artefact.png:
        artefact.png.delete(save=False)
    if artefact.pdf:
        artefact.pdf.delete(save=False)
    if artefact.svg_narrow:
        artefact.svg_narrow.delete(save=False)
