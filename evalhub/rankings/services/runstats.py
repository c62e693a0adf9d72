"""Each run's stored share of a test set's statistics, and the stored pair tests:
what makes a refresh after one new run cost O(N) instead of O(N^2).

A run's share (:class:`tasks.common.resampling.RunArrays`: its metric on every shared
resample, the sums each swap trial moves, its per-item losses, its interval) depends
only on the run, the gold items and the phase's samples and seed, so it is computed
once (``RunStatistics``) and kept while its key holds: gold version, scorer version
and time of the run's evaluation, samples, seed. A run computed now is tested against
every other run of the same items and the results are stored per pair
(``PairStatistics``, keyed by the two runs and the gold version and settings), so
the full matrix of any board can be read (:func:`pair_matrix`) without recomputing.

A gold replacement or a change of samples or seed changes every key: each run's
share is recomputed as the run is (re)scored, or all at once by the next refresh,
which reports its progress on ``TestSetStatistics`` (the console dashboard).

Every number is bit-for-bit what the full computation gives (``rs.pairwise``,
``rs.bootstrap_intervals``): each product has the same shape whichever runs are
computed together and the pair tests are element-wise (``resampling/runs.py``).
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from django.db import transaction

from evalhub.competitions import logs
from evalhub.competitions.models import Evaluation, Submission, TestSet
from evalhub.competitions.services.boards import ranking as boards_ranking
from evalhub.rankings.models import (
    PairStatistics,
    PhaseRanking,
    RunStatistics,
    TestSetStatistics,
)
from tasks.base import JSON, ScoreReport, TaskType
from tasks.common import resampling as rs

log = logging.getLogger(__name__)
CONFIDENCE = rs.DEFAULT_CONFIDENCE
#: Runs whose shares are computed and stored together (bounded memory, progress).
BATCH = 50
#: Seconds one refresh spends on missing shares and pairs before it stops and asks
#: for another: after new gold or settings on a big board the work is spread over
#: several jobs, each one's part kept. Well below the job's soft time limit (300 s):
#: the same job then draws the interval chart (about 20 to 45 s at 1,000 runs on a
#: loaded machine).
BUDGET = 150.0


class Unfinished(Exception):
    """The budget ran out; what was computed is stored, the rest is for the next
    refresh."""


@dataclass(frozen=True)
class Shares:
    """The runs that take part (scored on the current gold, readable, on the
    majority's items) in submission order, with their stored shares."""

    runs: list[int]
    arrays: dict[int, rs.RunArrays]
    losses: dict[int, np.ndarray]
    intervals: dict[int, dict[str, JSON]]
    key: str
    exact: bool
    #: The fingerprint of the majority's gold items and formula ("" without runs).
    items: str = ""

    @property
    def n_items(self) -> int:
        return self.arrays[self.runs[0]].n if self.runs else 0


def settings_key(test_set: TestSet, ranking: PhaseRanking) -> str:
    """Gold version and settings behind a stored pair: the metric that ranks too,
    when the organisers chose another than the task type's (``boards/ranking``)."""
    key = f"g{test_set.gold_version}:b{ranking.bootstrap_samples}:s{ranking.seed}"
    tag = metric_tag(test_set)
    return f"{key}:m{tag}" if tag else key


def ranking_metric(test_set: TestSet) -> str:
    """The key of the metric the statistics are computed over (``ranking.of``)."""
    return boards_ranking.of(test_set.phase).metric


def metric_tag(test_set: TestSet) -> str:
    """The ranking metric's key where it is not the task type's primary ("" else,
    so the shares stored before the choice existed stay valid)."""
    metric = ranking_metric(test_set)
    return "" if metric == test_set.phase.task.type.primary_metric else metric


def _run_key(ev: tuple[int, int, str, object], settings: str) -> str:
    _, _, scorer, at = ev
    return f"{settings}:v{scorer}:{at.isoformat()}"  # type: ignore[attr-defined]


def shares(
    *, test_set: TestSet, ranking: PhaseRanking, budget: float | None = None
) -> Shares:
    """Every taking-part run's share, computing (and storing) those missing or
    stale and the pairs of each run computed now with the others. With a
    ``budget`` (seconds), raises :class:`Unfinished` when it runs out first."""
    deadline = None if budget is None else time.monotonic() + budget
    settings = settings_key(test_set, ranking)
    evaluations = list(
        Evaluation.objects.filter(
            test_set=test_set,
            submission__status=Submission.Status.SCORED,
            gold_version=test_set.gold_version,
        )
        .order_by("submission__created_at", "submission_id")
        .values_list("pk", "submission_id", "scorer_version", "created_at")
    )
    wanted = {ev[1]: _run_key(ev, settings) for ev in evaluations}
    stored = dict(
        RunStatistics.objects.filter(test_set=test_set).values_list(
            "submission_id", "key"
        )
    )
    missing = [ev for ev in evaluations if stored.get(ev[1]) != wanted[ev[1]]]
    # Two steps per run: its share, then its pairs.
    steps = _Progress(test_set, total=2 * len(evaluations))
    if missing:
        steps.at = len(evaluations) - len(missing)
        _compute_missing(test_set, ranking, missing, wanted, deadline, steps)
    rows = {
        pk: row
        for pk, *row in RunStatistics.objects.filter(test_set=test_set).values_list(
            "submission_id",
            "items",
            "value",
            "interval",
            "sums",
            "boot",
            "swaps",
            "losses",
            "paired",
        )
        if pk in wanted
    }
    usable = [pk for pk in wanted if pk in rows and rows[pk][0]]
    if not usable:
        return Shares([], {}, {}, {}, settings, exact=False)
    items, _ = Counter(rows[pk][0] for pk in usable).most_common(1)[0]
    runs = [pk for pk in usable if rows[pk][0] == items]
    formula = _formula(rows[runs[0]])
    arrays = {pk: _arrays(formula, rows[pk]) for pk in runs}
    n = arrays[runs[0]].n
    exact = rs.tested(n) and rs.exact_randomisation(n, ranking.bootstrap_samples)
    unpaired = [pk for pk in runs if not rows[pk][7]]
    if unpaired:
        steps.at = 2 * len(evaluations) - len(unpaired)
        _store_pairs(test_set, settings, runs, unpaired, arrays, exact, deadline, steps)
    steps.finished()
    return Shares(
        runs=runs,
        arrays=arrays,
        losses={pk: np.frombuffer(rows[pk][6], dtype=np.float64) for pk in runs},
        intervals={pk: rows[pk][2] for pk in runs if rows[pk][2] is not None},
        key=settings,
        exact=exact,
        items=items,
    )


def _formula(row: Sequence[object]) -> rs.Formula:
    return str(row[0]).split(":", 1)[0]  # type: ignore[return-value]


def _arrays(formula: rs.Formula, row: Sequence[object]) -> rs.RunArrays:
    _, value, _, sums, boot, swaps, _, _ = row
    k_sums = np.frombuffer(sums, dtype=np.float64)  # type: ignore[arg-type]
    k = len(k_sums)
    n = int(str(row[0]).split(":")[1])
    return rs.RunArrays(
        formula=formula,
        n=n,
        value=float(value),  # type: ignore[arg-type]
        sums=k_sums,
        boot=np.frombuffer(boot, dtype=np.float64),  # type: ignore[arg-type]
        swaps=np.frombuffer(swaps, dtype=np.float64).reshape(-1, k),  # type: ignore[arg-type]
    )


def _fingerprint(stats: rs.ItemStats, tag: str = "") -> str:
    """The gold items, formula and (``tag``) metric of a share: two shares are
    compared only when they are equal."""
    text = "\x1f".join(stats.keys) + (f"\x1e{tag}" if tag else "")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
    return f"{stats.formula}:{stats.n}:{stats.values.shape[1]}:{digest}"


def _compute_missing(
    test_set: TestSet,
    ranking: PhaseRanking,
    missing: list[tuple[int, int, str, object]],
    wanted: dict[int, str],
    deadline: float | None,
    steps: _Progress,
) -> None:
    """Compute and store the shares of ``missing`` runs, ``BATCH`` at a time;
    their stored pairs under this key go (recomputed with the others by
    :func:`shares`)."""
    settings = settings_key(test_set, ranking)
    task_type = test_set.phase.task.type
    metric, tag = ranking_metric(test_set), metric_tag(test_set)
    for start in range(0, len(missing), BATCH):
        batch = missing[start : start + BATCH]
        evs = Evaluation.objects.in_bulk([ev[0] for ev in batch])
        found: dict[str, list[tuple[int, rs.ItemStats]]] = {}
        unusable: list[int] = []
        for ev_pk, sub_pk, _, _ in batch:
            stats = run_stats(task_type, evs[ev_pk], metric)
            if stats is None:
                unusable.append(sub_pk)
            else:
                found.setdefault(_fingerprint(stats, tag), []).append((sub_pk, stats))
        made = [RunStatistics(submission_id=pk, items="") for pk in unusable]
        for items, group in found.items():
            arrays = rs.run_arrays(
                [s for _, s in group],
                samples=ranking.bootstrap_samples,
                trials=ranking.bootstrap_samples,
                seed=ranking.seed,
            )
            for (pk, stats), a in zip(group, arrays, strict=True):
                made.append(_row(pk, items, stats, a, ranking))
        done = [row.submission_id for row in made]
        for row in made:
            row.test_set = test_set
            row.key = wanted[row.submission_id]
        pairs = PairStatistics.objects.filter(test_set=test_set, key=settings)
        with transaction.atomic():
            pairs.filter(run_a_id__in=done).delete()
            pairs.filter(run_b_id__in=done).delete()
            RunStatistics.objects.filter(
                test_set=test_set, submission_id__in=done
            ).delete()
            RunStatistics.objects.bulk_create(made, ignore_conflicts=True)
        steps.advance(len(batch))
        _check(deadline, start + len(batch) < len(missing))


def _row(
    pk: int, items: str, stats: rs.ItemStats, a: rs.RunArrays, ranking: PhaseRanking
) -> RunStatistics:
    interval = rs.interval_of(
        a, samples=ranking.bootstrap_samples, seed=ranking.seed, confidence=CONFIDENCE
    )
    finite = interval is not None and all(
        math.isfinite(v) for v in (interval.value, interval.low, interval.high)
    )
    return RunStatistics(
        submission_id=pk,
        items=items,
        value=a.value,
        interval=interval.to_json() if finite else None,  # type: ignore[union-attr]
        sums=a.sums.astype(np.float64).tobytes(),
        boot=a.boot.astype(np.float64).tobytes(),
        swaps=a.swaps.astype(np.float64).tobytes(),
        losses=stats.losses().astype(np.float64).tobytes(),
    )


def run_stats(
    task_type: TaskType, ev: Evaluation, metric: str | None = None
) -> rs.ItemStats | None:
    """One run's per-item statistics of ``metric`` (None: the primary; the
    phase's ranking metric, ``ranking_metric``), or None when the run cannot take
    part: its metric is undefined (e.g. nothing judged yet: no interval, no band until it is)
    or its stored outcome cannot be read. Logged; the other runs are unaffected."""
    report = ScoreReport(metrics={}, payload=ev.payload, detail=ev.detail)
    try:
        stats = task_type.item_statistics(report, metric)
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


def _store_pairs(
    test_set: TestSet,
    key: str,
    runs: list[int],
    new: list[int],
    arrays: dict[int, rs.RunArrays],
    exact: bool,
    deadline: float | None,
    steps: _Progress,
) -> None:
    """Test each run of ``new`` against every other run of ``runs`` (each pair
    once) and store the results: O(N) per new run."""
    fresh = set(new)
    done = RunStatistics.objects.filter(test_set=test_set)
    for count, pk in enumerate(new, start=1):
        others = [o for o in runs if o != pk and not (o in fresh and o < pk)]
        result = rs.pair_tests(arrays[pk], [arrays[o] for o in others], exact=exact)
        with transaction.atomic():
            PairStatistics.objects.bulk_create(
                [
                    _pair(test_set, key, pk, o, float(d), float(pb), float(pr))
                    for o, d, pb, pr in zip(
                        others,
                        result.delta,
                        result.p_bootstrap,
                        result.p_randomisation,
                        strict=True,
                    )
                ],
                ignore_conflicts=True,
            )
            # Marked run by run: a refresh stopped half-way resumes here.
            done.filter(submission_id=pk).update(paired=True)
        steps.advance(1, report=count % BATCH == 0)
        _check(deadline, count < len(new))


def _check(deadline: float | None, more: bool) -> None:
    if more and deadline is not None and time.monotonic() >= deadline:
        raise Unfinished


def _pair(
    test_set: TestSet, key: str, a: int, b: int, delta: float, pb: float, pr: float
) -> PairStatistics:
    if a > b:
        a, b, delta = b, a, -delta
    return PairStatistics(
        test_set=test_set,
        run_a_id=a,
        run_b_id=b,
        key=key,
        delta=delta,
        p_bootstrap=pb,
        p_randomisation=pr,
    )


class _Progress:
    """How far a refresh that computes many shares and pairs is, on the test set's
    statistics row (outside the refresh's transaction, so the dashboard sees it);
    reported only when there is much to do (more than ``BATCH`` steps left)."""

    def __init__(self, test_set: TestSet, *, total: int) -> None:
        self.rows = TestSetStatistics.objects.filter(test_set=test_set)
        self.total = total
        self.at = 0
        self.shown = False

    def advance(self, steps: int, *, report: bool = True) -> None:
        self.at += steps
        if report and (self.shown or self.total - self.at > BATCH):
            self.shown = True
            self.rows.update(progress_done=self.at, progress_total=self.total)

    def finished(self) -> None:
        self.rows.filter(progress_total__gt=0).update(progress_done=0, progress_total=0)
