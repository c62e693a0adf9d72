"""Leaderboards: the best scored run per team on a test set by the task's primary
metric (ties between a team's runs: the earlier one), standard competition ranking
(1, 2, 2, 4). Computed once per change and cached; a newly scored run invalidates the
test set's entry by bumping a version number in the cache."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.core.cache import cache

from evalhub.competitions.models import Score, Submission, TestSet


@dataclass(frozen=True, slots=True)
class Row:
    rank: int
    team: str
    submission_id: int
    method_name: str
    submitted_at: datetime
    is_baseline: bool
    #: (metric key, value, formatted) in the task type's metric order
    metrics: tuple[tuple[str, float | None, str], ...]
    primary: float | None


@dataclass(frozen=True, slots=True)
class Board:
    test_set_id: int
    metric_keys: tuple[str, ...]
    metric_labels: tuple[str, ...]
    primary_metric: str
    rows: tuple[Row, ...]


def _version_key(test_set_id: int) -> str:
    return f"leaderboard:version:{test_set_id}"


def invalidate(*, test_set_id: int) -> None:
    key = _version_key(test_set_id)
    try:
        cache.incr(key)
    except ValueError:
        cache.set(key, 1, timeout=None)


def board(*, test_set: TestSet) -> Board:
    version = cache.get(_version_key(test_set.pk)) or 0
    key = f"leaderboard:{test_set.pk}:{version}"
    cached = cache.get(key)
    if cached is None:
        cached = compute(test_set=test_set)
        cache.set(key, cached, timeout=24 * 3600)
    return cached


def compute(*, test_set: TestSet) -> Board:
    task_type = test_set.phase.task.type
    metric_keys = tuple(m.key for m in task_type.metrics)
    primary = task_type.primary_metric
    higher = task_type.metric(primary).higher_is_better

    subs = {
        s.pk: s
        for s in Submission.objects.filter(
            phase=test_set.phase,
            status=Submission.Status.SCORED,
            evaluations__test_set=test_set,
        ).select_related("team")
    }
    values: dict[int, dict[str, float | None]] = {pk: {} for pk in subs}
    for sub_id, metric, value in Score.objects.filter(
        test_set=test_set, submission_id__in=subs
    ).values_list("submission_id", "metric", "value"):
        values[sub_id][metric] = value

    def sort_key(pk: int) -> tuple[float, datetime, int]:
        value = values[pk].get(primary)
        v = float("-inf") if value is None else (value if higher else -value)
        return (-v, subs[pk].created_at, pk)

    best: dict[tuple[int, bool], int] = {}
    for pk in sorted(subs, key=sort_key):
        best.setdefault((subs[pk].team_id, subs[pk].is_baseline), pk)
    ordered = sorted(best.values(), key=sort_key)

    rows: list[Row] = []
    prev: float | None = None
    rank = 0
    for position, pk in enumerate(ordered, start=1):
        value = values[pk].get(primary)
        if position == 1 or value != prev:
            rank = position
        prev = value
        sub = subs[pk]
        rows.append(
            Row(
                rank=rank,
                team=sub.team.name,
                submission_id=pk,
                method_name=sub.method_name,
                submitted_at=sub.created_at,
                is_baseline=sub.is_baseline,
                metrics=tuple(
                    (m.key, values[pk].get(m.key), m.format(values[pk].get(m.key)))
                    for m in task_type.metrics
                ),
                primary=value,
            )
        )
    return Board(
        test_set_id=test_set.pk,
        metric_keys=metric_keys,
        metric_labels=tuple(m.label for m in task_type.metrics),
        primary_metric=primary,
        rows=tuple(rows),
    )
