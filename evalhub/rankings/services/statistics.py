"""Confidence intervals, pairwise significance, rank bands and the Ladder of one test
set, computed on the worker from the stored per-item outcomes (``Evaluation.detail``,
through the task type's ``item_statistics``) and cached in ``TestSetStatistics``.

Methods and defaults: :mod:`tasks.common.resampling` (over the task type's unit).
Every run on the test set shares the same resamples (a function of the phase's seed
and the number of units), so the numbers are the same whenever recomputed.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from django.db import transaction

from evalhub.competitions.models import Submission, TestSet
from evalhub.competitions.services.boards import (
    boardcache,
    leaderboard,
    refreshes,
    selection,
    visibility,
)
from evalhub.competitions.services.boards import coverage as cells
from evalhub.competitions.services.boards import ranking as ranking_rule
from evalhub.competitions.services.data import tracks
from evalhub.rankings.models import PhaseRanking, TestSetStatistics
from evalhub.rankings.services import ladder, pairs, runstats
from evalhub.rankings.services.ladder import ladder_applies
from tasks.base import JSON, Metric
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
    metric = ranking_rule.metric(test_set.phase)
    n = int(data.get("n_items") or 0)
    return leaderboard.Statistics(
        signature=row.signature,
        intervals=_intervals(data, metric, n),
        bands={
            int(pk): int(b)
            for pk, b in zip(
                matrix.get("runs", []), matrix.get("bands", []), strict=True
            )
            if b is not None
        },
        has_chart=_has_chart(row, track_id) and not draws_hidden_runs(row),
        legend=legend(data, matrix),
    )


def _intervals(
    data: Mapping[str, JSON], metric: Metric, n: int
) -> dict[int, tuple[float, float, str]]:
    """Each run's interval as a board shows it; below two units a run has none,
    and says so ("n = 1: no interval") rather than showing nothing."""
    out = {
        int(k): (v["low"], v["high"], format_interval(metric, v, n))
        for k, v in data.get("intervals", {}).items()  # type: ignore[union-attr]
    }
    if n < 2 and not metric.count:
        for matrix in [matrix_of(data, None), *(data.get("tracks") or {}).values()]:  # type: ignore[union-attr]
            for pk, value in zip(
                matrix.get("runs", []), matrix.get("values", []), strict=True
            ):
                text = rs.bands.interval_text(float(value), 0.0, n)
                out.setdefault(int(pk), (float(value), float(value), text))
    return out


def unit_of(data: Mapping[str, JSON]) -> rs.bands.Unit:
    """The resampling unit the stored statistics were computed over."""
    return rs.bands.unit_from(data.get("unit"))


def legend(data: Mapping[str, JSON], matrix: Mapping[str, JSON]) -> str:
    """What a board's bands mean (the one rule's sentence, with its unit, n,
    correction and comparisons), or why it has none (``rs.bands.legend``)."""
    if not data or not matrix:
        return ""
    return rs.bands.legend(
        unit_of(data),
        int(data.get("n_items") or 0),  # type: ignore[call-overload]
        alpha=float(data.get("alpha") or rs.DEFAULT_ALPHA),  # type: ignore[arg-type]
        trials=int(data.get("samples") or rs.DEFAULT_SAMPLES),  # type: ignore[call-overload]
        powered=bool(matrix.get("powered", True)),
        comparisons=matrix.get("band_comparisons") or [],  # type: ignore[arg-type]
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


def format_interval(
    metric: Metric, interval: Mapping[str, float] | None, n: int | None = None
) -> str:
    """``"0.2816 ± 0.012"``, or the degenerate interval's note
    (:func:`tasks.common.resampling.bands.interval_text`); "" without an interval or
    for a count metric."""
    if interval is None or metric.count:
        return ""
    return rs.bands.interval_text(
        interval["value"], interval["half_width"], 2 if n is None else n
    )


def signature(test_set: TestSet, ranking: PhaseRanking, n: int | None = None) -> str:
    """Method, version and parameters behind the numbers (sacrebleu style); the
    same line ``evalhub compare`` prints (:func:`tasks.common.compare.signature`)."""
    from tasks.common.compare import signature as line

    task_type = test_set.phase.task.type
    return line(
        slug=task_type.slug,
        version=task_type.version,
        metric=ranking_rule.of(test_set.phase).metric,
        gold_version=test_set.gold_version,
        samples=ranking.bootstrap_samples,
        seed=ranking.seed,
        alpha=ranking.alpha,
        ladder_margin=ranking.ladder_margin if ranking.ladder else None,
        unit=task_type.unit,
        n=_n_items(test_set) if n is None else n,
    )


def _n_items(test_set: TestSet) -> int | None:
    row = TestSetStatistics.objects.filter(test_set=test_set).first()
    if row is None or not row.data:
        return None
    return int(row.data.get("n_items") or 0)


def compute(
    *,
    test_set: TestSet,
    ranking: PhaseRanking,
    shares: runstats.Shares | None = None,
    carried: Mapping[int, rs.LadderRun] | None = None,
) -> dict[str, JSON]:
    """Intervals, the Ladder and each board's bands from the runs' stored shares
    (``runstats``: only runs new since the last refresh are computed, with their
    pairs). Bands test each run against its band's leader; the full matrix of a
    board is read on request (:func:`with_pairs`)."""
    metric = ranking_rule.metric(test_set.phase)
    higher = metric.higher_is_better
    if shares is None:
        shares = runstats.shares(test_set=test_set, ranking=ranking)
    arrays = shares.arrays
    if carried is None:
        carried = ladder.carried_runs(test_set=test_set, items=shares.items)
    # Every run counts, hidden or not, in submission order (services/ladder.py).
    released, steps = ladder.decide(
        test_set=test_set,
        runs_of={
            # A copy after the campaign: the campaign's runs first.
            **carried,
            **{
                pk: rs.LadderRun(str(pk), arrays[pk].value, shares.losses[pk])
                for pk in shares.runs
            },
        },
        higher_is_better=higher,
        margin=ranking.ladder_margin,
    )
    applies = ladder_applies(test_set, ranking)

    def matrix(track_id: int | None) -> dict[str, JSON]:
        """Values and rank bands over one board's runs."""
        board = selection.select_runs(
            test_set=test_set, released=released if applies else None, track_id=track_id
        )
        board = [pk for pk in board if pk in arrays]
        values = [arrays[pk].value for pk in board]
        exact = len(board) >= 2 and shares.exact

        def p_against(i: int, others: Sequence[int]) -> Sequence[float]:
            tests = rs.pair_tests(
                arrays[board[i]], [arrays[board[j]] for j in others], exact=exact
            )
            return tests.p_randomisation

        powered = rs.bands.can_reach(
            shares.n_items, ranking.bootstrap_samples, ranking.alpha
        )
        keep = cells.banded(test_set, board)  # a mean over fewer cells: no band
        bands = rs.bands.holm_bands(
            [values[i] for i in keep] if powered else [],
            lambda i, others: p_against(keep[i], [keep[j] for j in others]),
            higher_is_better=higher,
            alpha=ranking.alpha,
            floor=rs.bands.smallest_p(shares.n_items, ranking.bootstrap_samples),
        )
        held = dict(zip(keep, bands.bands, strict=False))
        return {
            "runs": board,  # type: ignore[dict-item]
            "values": values,  # type: ignore[dict-item]
            "exact": exact,
            # None where no difference over these units can reach alpha.
            "bands": [held.get(i) for i in range(len(board))],  # type: ignore[dict-item]
            "powered": powered,
            "band_comparisons": bands.comparisons,  # type: ignore[dict-item]
            # Where the full matrix is read from (``with_pairs``).
            "pairs_key": shares.key,
        }

    return {
        "metric": metric.key,
        "higher_is_better": higher,
        "n_items": shares.n_items,
        "unit": rs.bands.unit_json(test_set.phase.task.type.unit),
        "smallest_p": rs.bands.smallest_p(shares.n_items, ranking.bootstrap_samples),
        "samples": ranking.bootstrap_samples,
        "seed": ranking.seed,
        "confidence": CONFIDENCE,
        "alpha": ranking.alpha,
        "intervals": {str(pk): iv for pk, iv in shares.intervals.items()},
        "ladder": {
            "enabled": ranking.ladder,
            "applies": applies,
            "margin": ranking.ladder_margin,
            "metric": metric.key,  # decisions under another are not used
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


def with_pairs(*, test_set: TestSet, matrix: Mapping[str, JSON]) -> dict[str, JSON]:
    """A stored board matrix (:func:`matrix_of`) with its full pairwise matrices
    (delta, p-values) read from the stored pairs: the significance page, its
    exports and the package."""
    runs = list(matrix.get("runs") or [])  # type: ignore[call-overload]
    if not runs:
        return {**matrix, "delta": [], "p_bootstrap": [], "p_randomisation": []}
    ranking = PhaseRanking.for_phase(test_set.phase)
    key = str(matrix.get("pairs_key") or runstats.settings_key(test_set, ranking))
    return {
        **matrix,
        **pairs.pair_matrix(test_set=test_set, ranking=ranking, runs=runs, key=key),
    }


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
    ranking = PhaseRanking.for_phase(test_set.phase)
    # The new runs' shares and pairs (all of them after new gold or settings, with
    # progress on the dashboard) are stored before the row is locked.
    try:
        shares = runstats.shares(
            test_set=test_set, ranking=ranking, budget=runstats.BUDGET
        )
    except runstats.Unfinished:
        # Its part is stored (progress on the dashboard); the next job goes on.
        refreshes.request(kind=refreshes.STATISTICS, test_set_id=test_set_id)
        return "continued"
    # A copy after the campaign: its original's runs (their shares, computed if
    # missing) read before the row is locked too.
    carried = ladder.carried_runs(test_set=test_set, items=shares.items)
    with transaction.atomic():
        row = TestSetStatistics.objects.select_for_update().get(test_set=test_set)
        before = visibility.released(test_set)
        shown_key = matrix_of(row.data or {}, None).get("pairs_key")
        data = compute(
            test_set=test_set, ranking=ranking, shares=shares, carried=carried
        )
        previous, row.data = row.data, data
        row.signature = signature(test_set, ranking, n=shares.n_items)
        _save_charts(row, test_set, data, previous)
        row.save()
        decided = visibility.released(test_set) != before
    if shown_key != shares.key:  # new gold or settings: the old pairs are not shown
        pairs.forget_other_keys(test_set=test_set, key=shares.key)
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


def _save_charts(
    row: TestSetStatistics, test_set: TestSet, data: dict, previous: dict | None
) -> None:
    # Imported when drawn: matplotlib is slow to import in a web process.
    from evalhub.rankings.services import charts

    charts.save_charts(row, test_set, data, previous)


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
    shares = runstats.shares(test_set=test_set, ranking=ranking)
    if run_a not in shares.arrays or run_b not in shares.arrays:
        raise NotComparable
    a, b = shares.arrays[run_a], shares.arrays[run_b]
    one = rs.pair_tests(a, [b], exact=shares.exact)
    return {
        "test_set": test_set.slug,
        "metric": ranking_rule.of(test_set.phase).metric,
        "run_a": run_a,
        "run_b": run_b,
        "value_a": a.value,
        "value_b": b.value,
        "delta": float(one.delta[0]),
        "p_bootstrap": float(one.p_bootstrap[0]),
        "p_randomisation": float(one.p_randomisation[0]),
        "signature": signature(test_set, ranking),
    }
