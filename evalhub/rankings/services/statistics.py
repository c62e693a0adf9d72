"""Confidence intervals, pairwise significance, rank bands and the Ladder of one test
set, computed on the worker from the stored per-item outcomes (``Evaluation.detail``,
through the task type's ``item_statistics``) and cached in ``TestSetStatistics``.

Methods and defaults are documented in :mod:`tasks.common.resampling` (seeded paired
bootstrap over gold items, 1,000 samples, 95 %; approximate randomisation; Blum &
Hardt's parameter-free Ladder). Every run on the test set shares the same resamples
(a function of the phase's seed and the number of gold items), so the numbers are the
same whenever they are recomputed.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Mapping, Sequence

from django.db import transaction

from evalhub.competitions import logs
from evalhub.competitions.models import Evaluation, Submission, TestSet
from evalhub.competitions.services.boards import (
    boardcache,
    leaderboard,
    refreshes,
    selection,
    visibility,
)
from evalhub.competitions.services.data import tracks
from evalhub.rankings.models import PhaseRanking, TestSetStatistics
from evalhub.rankings.services import ladder
from evalhub.rankings.services.ladder import ladder_applies
from tasks.base import JSON, Metric, ScoreReport, TaskType
from tasks.common import resampling as rs

CONFIDENCE = rs.DEFAULT_CONFIDENCE
log = logging.getLogger(__name__)


def matrix_of(data: Mapping[str, JSON], track_id: int | None) -> dict[str, JSON]:
    """The pairwise matrix (runs, values, p-values, bands) of the board of one
    track (``track_id``; None: of every track together), {} until computed."""
    if track_id is None:
        return data.get("matrix") or {}  # type: ignore[return-value]
    return (data.get("tracks") or {}).get(str(track_id)) or {}  # type: ignore[union-attr, return-value]


def cached(*, test_set: TestSet, track_id: int | None = None) -> leaderboard.Statistics:
    """What a board (of one track, or of every track) shows from the stored
    statistics (registered as the core's ``leaderboard.register_statistics``
    source). Intervals are a run's own; bands are those of the board's runs."""
    row = TestSetStatistics.objects.filter(test_set=test_set).first()
    if row is None or not row.data:
        return leaderboard.Statistics()
    data = row.data
    matrix = matrix_of(data, track_id)
    task_type = test_set.phase.task.type
    metric = task_type.metric(task_type.primary_metric)
    return leaderboard.Statistics(
        signature=row.signature,
        intervals={
            int(k): (v["low"], v["high"], format_interval(metric, v))
            for k, v in data.get("intervals", {}).items()
        },
        bands={
            int(pk): int(b)
            for pk, b in zip(
                matrix.get("runs", []), matrix.get("bands", []), strict=True
            )
        },
        has_chart=_has_chart(row, track_id) and not draws_hidden_runs(row),
    )


def _has_chart(row: TestSetStatistics, track_id: int | None) -> bool:
    """The chart of the board of ``track_id`` (None: of every track) is drawn.
    Statistics stored before each track had its chart: the worker is asked to
    draw them (requests are coalesced)."""
    if track_id is None:
        return bool(row.chart_svg)
    if row.track_charts.filter(track_id=track_id).exclude(chart_svg="").exists():
        return True
    if row.chart_svg and not row.track_charts.exists():
        refreshes.request(kind=refreshes.STATISTICS, test_set_id=row.test_set_id)
    return False


def draws_hidden_runs(row: TestSetStatistics) -> bool:
    """The stored chart and matrix still include a run hidden since they were
    computed (the refresh is on its way): not for the public until then."""
    data = row.data or {}
    runs = list(data.get("matrix", {}).get("runs", []))
    for matrix in (data.get("tracks") or {}).values():
        runs.extend(matrix.get("runs", []))
    return Submission.objects.filter(pk__in=runs, hidden=True).exists()


def format_interval(metric: Metric, interval: Mapping[str, float] | None) -> str:
    """``"0.2816 ± 0.012"``; "" without an interval or for a count metric."""
    if interval is None or metric.count:
        return ""
    return f"{interval['value']:.4f} ± {interval['half_width']:.3f}"


def signature(test_set: TestSet, ranking: PhaseRanking) -> str:
    """Method, version and parameters behind the numbers (sacrebleu style); the
    same line ``evalhub compare`` prints (:func:`tasks.common.compare.signature`)."""
    from tasks.common.compare import signature as line

    task_type = test_set.phase.task.type
    return line(
        slug=task_type.slug,
        version=task_type.version,
        metric=task_type.primary_metric,
        gold_version=test_set.gold_version,
        samples=ranking.bootstrap_samples,
        seed=ranking.seed,
        alpha=ranking.alpha,
        ladder_margin=ranking.ladder_margin if ranking.ladder else None,
    )


def item_stats_of(
    test_set: TestSet,
) -> list[tuple[Submission, rs.ItemStats]]:
    """Scored runs on the current gold with their per-item statistics, in
    submission order; runs whose items differ from the majority's are left out."""
    task_type = test_set.phase.task.type
    evaluations = (
        Evaluation.objects.filter(
            test_set=test_set,
            submission__status=Submission.Status.SCORED,
            gold_version=test_set.gold_version,
        )
        .select_related("submission")
        .order_by("submission__created_at", "submission_id")
    )
    runs: list[tuple[Submission, rs.ItemStats]] = []
    for ev in evaluations:
        stats = _run_stats(task_type, ev)
        if stats is not None:
            runs.append((ev.submission, stats))
    if not runs:
        return []
    keys, _ = Counter(s.keys for _, s in runs).most_common(1)[0]
    return [(sub, s) for sub, s in runs if s.keys == keys]


def _run_stats(task_type: TaskType, ev: Evaluation) -> rs.ItemStats | None:
    """One run's per-item statistics, or None when the run cannot take part: its
    metric is undefined (e.g. nothing judged yet: no interval, no band until it is)
    or its stored outcome cannot be read. Logged; the other runs are unaffected."""
    report = ScoreReport(metrics={}, payload=ev.payload, detail=ev.detail)
    try:
        stats = task_type.item_statistics(report)
        value = None if stats is None else stats.value()
    except logs.FATAL:
        raise
    except Exception:  # noqa: BLE001 - one run's bad outcome must not stop the rest
        logs.error_without_text(
            log,
            "statistics: run %s on test set %s left out (its outcome is unreadable)",
            ev.submission_id,
            ev.test_set_id,
        )
        return None
    if value is not None and not math.isfinite(value):
        log.warning(
            "statistics: run %s on test set %s left out (metric undefined)",
            ev.submission_id,
            ev.test_set_id,
        )
        return None
    return stats


def _finite_interval(interval: rs.Interval) -> bool:
    return all(math.isfinite(v) for v in (interval.value, interval.low, interval.high))


def compute(*, test_set: TestSet, ranking: PhaseRanking) -> dict[str, JSON]:
    task_type = test_set.phase.task.type
    higher = task_type.metric(task_type.primary_metric).higher_is_better
    runs = item_stats_of(test_set)
    samples, seed = ranking.bootstrap_samples, ranking.seed

    # With fewer than two gold items (e.g. a one-document bitext) every resample is
    # the sample itself: no interval rather than a misleading "± 0.000".
    intervals = (
        rs.bootstrap_intervals(
            [s for _, s in runs], samples=samples, seed=seed, confidence=CONFIDENCE
        )
        if runs and runs[0][1].n >= 2
        else []
    )
    # Every run counts, hidden or not, in submission order (services/ladder.py).
    released, steps = ladder.decide(
        test_set=test_set,
        stats_of={sub.pk: st for sub, st in runs},
        higher_is_better=higher,
        margin=ranking.ladder_margin,
    )
    applies = ladder_applies(test_set, ranking)
    stats_of = {sub.pk: s for sub, s in runs}

    def matrix(track_id: int | None) -> dict[str, JSON]:
        """Pairwise tests and rank bands over one board's runs."""
        board = selection.select_runs(
            test_set=test_set, released=released if applies else None, track_id=track_id
        )
        board = [pk for pk in board if pk in stats_of]
        result = rs.pairwise(
            [stats_of[pk] for pk in board], samples=samples, trials=samples, seed=seed
        )
        bands = rs.rank_bands(
            result.values,
            result.p_randomisation,
            higher_is_better=higher,
            alpha=ranking.alpha,
        )
        return {
            "runs": board,  # type: ignore[dict-item]
            "values": list(result.values),
            "delta": _rounded(result.delta),
            "p_bootstrap": _rounded(result.p_bootstrap),
            "p_randomisation": _rounded(result.p_randomisation),
            "exact": result.exact,
            "bands": bands,  # type: ignore[dict-item]
        }

    return {
        "metric": task_type.primary_metric,
        "higher_is_better": higher,
        "n_items": runs[0][1].n if runs else 0,
        "samples": samples,
        "seed": seed,
        "confidence": CONFIDENCE,
        "alpha": ranking.alpha,
        "intervals": {
            str(sub.pk): iv.to_json()  # type: ignore[misc]
            for (sub, _), iv in zip(runs, intervals, strict=False)
            if _finite_interval(iv)
        },
        "ladder": {
            "enabled": ranking.ladder,
            "applies": applies,
            "margin": ranking.ladder_margin,
            "gold_version": test_set.gold_version,
            "shown": released,  # type: ignore[dict-item]
            "steps": steps,
        },
        # The board of every track together (a phase without tracks: the board).
        "matrix": matrix(None),
        # Each track's own board: significance and bands within the track.
        "tracks": {
            str(t.pk): matrix(t.pk) for t in tracks.phase_tracks(test_set.phase)
        },
    }


def _rounded(matrix: Sequence[Sequence[float]]) -> list[JSON]:
    return [[round(float(v), 12) for v in row] for row in matrix]


def refresh(*, test_set_id: int) -> str:
    """Recompute and store one test set's statistics, then invalidate its
    leaderboard. Idempotent. Refreshes are coalesced (``refreshes.turn``): while
    one runs, another of the same test set returns "busy" after asking for a
    later one, so the last refresh sees every committed run."""
    with refreshes.turn(kind=refreshes.STATISTICS, test_set_id=test_set_id) as mine:
        return _refresh(test_set_id) if mine else "busy"


def _refresh(test_set_id: int) -> str:
    test_set = (
        TestSet.objects.select_related("phase__task").filter(pk=test_set_id).first()
    )
    if test_set is None:
        return "missing"
    TestSetStatistics.objects.get_or_create(test_set=test_set)
    with transaction.atomic():
        row = TestSetStatistics.objects.select_for_update().get(test_set=test_set)
        before = visibility.released(test_set)
        ranking = PhaseRanking.for_phase(test_set.phase)
        data = compute(test_set=test_set, ranking=ranking)
        row.data = data
        row.signature = signature(test_set, ranking)
        _save_charts(row, test_set, data)
        row.save()
        decided = visibility.released(test_set) != before
    # A Ladder decision changes which runs the public sees: no page drawn before
    # it is served again, and the figures drawn from the old board are redrawn.
    boardcache.invalidate(
        test_set_id=test_set_id, refresh_statistics=False, retract=decided
    )
    if decided:
        transaction.on_commit(
            lambda: refreshes.request(kind=refreshes.ANALYSES, test_set_id=test_set_id)
        )
    return "refreshed"


def _save_charts(row: TestSetStatistics, test_set: TestSet, data: dict) -> None:
    # Imported when drawn: matplotlib is slow to import in a web process.
    from evalhub.rankings.services import charts

    charts.save_charts(row, test_set, data)


class NotComparable(Exception):
    """The runs cannot be compared here (not scored on this gold, or not visible)."""


def compare_runs(
    *, test_set: TestSet, run_a: int, run_b: int, user: object
) -> dict[str, JSON]:
    """Paired bootstrap and approximate randomisation between two scored runs on one
    test set, with the phase's samples and seed. Leak rules: the test set's scores
    must be visible to ``user``; in Ladder mode a non-organiser may only compare runs
    the public board shows (comparing unreleased runs would reveal their scores)."""
    from evalhub.competitions.services.boards import access

    task = test_set.phase.task
    if not access.can_see_task(user, task) or not access.can_see_scores(user, test_set):
        raise NotComparable
    found = Submission.objects.select_related("phase__task", "team").in_bulk(
        [run_a, run_b]
    )
    if not all(
        pk in found and access.can_see_run(user, found[pk]) for pk in (run_a, run_b)
    ):
        raise NotComparable
    if not all(
        access.can_see_run_scores(user, found[pk], test_set) for pk in (run_a, run_b)
    ):
        raise NotComparable  # e.g. a run the Ladder did not release
    ranking = PhaseRanking.for_phase(test_set.phase)
    stats = {sub.pk: s for sub, s in item_stats_of(test_set)}
    if run_a not in stats or run_b not in stats:
        raise NotComparable
    delta, p_boot, p_rand = rs.compare(
        stats[run_a],
        stats[run_b],
        samples=ranking.bootstrap_samples,
        trials=ranking.bootstrap_samples,
        seed=ranking.seed,
    )
    return {
        "test_set": test_set.slug,
        "metric": task.type.primary_metric,
        "run_a": run_a,
        "run_b": run_b,
        "value_a": stats[run_a].value(),
        "value_b": stats[run_b].value(),
        "delta": delta,
        "p_bootstrap": p_boot,
        "p_randomisation": p_rand,
        "signature": signature(test_set, ranking),
    }
