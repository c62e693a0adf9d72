"""Leaderboards: the best scored run per team on a test set by the task's primary
metric (ties between a team's runs: the earlier one), standard competition ranking
(1, 2, 2, 4). Computed once per change and cached under the test set's board version
(``services/boardcache.py``); which runs a board ranks is decided in
``services/selection.py``, and what the public may see of a score (hidden runs,
private test sets, the Ladder) in ``services/visibility.py``.

Rows carry the primary metric's bootstrap interval and rank band when a feature app
provides them (the rankings app registers a ``StatisticsSource`` at start-up).
In Ladder mode (a per-phase setting of the rankings app) a *public* test set
shows, per team, only the run the Ladder released; private test sets are unaffected."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from django.core.cache import cache

from evalhub.competitions.models import TestSet
from evalhub.competitions.services import visibility
from evalhub.competitions.services.boardcache import (  # noqa: F401  (the boards' API)
    FRAGMENT_TIMEOUT,
    _versions,
    fragment,
    invalidate,
    invalidate_phase,
    invalidate_task,
    page_key,
    render_ahead_with,
)
from evalhub.competitions.services.selection import (  # noqa: F401
    final_runs,
    finals_apply,
    public_scores,
    ranked_runs,
    scored_runs,
    select,
    select_runs,
    team_key,
)


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
    #: Bootstrap interval of the primary metric ("" until computed).
    interval: str = ""
    low: float | None = None
    high: float | None = None
    #: Shared rank band: runs in one band are not significantly different.
    band: int | None = None
    #: Only on organisers' boards: the team hid the run / chose it as final.
    hidden: bool = False
    final: bool = False


@dataclass(frozen=True, slots=True)
class Board:
    test_set_id: int
    metric_keys: tuple[str, ...]
    metric_labels: tuple[str, ...]
    primary_metric: str
    rows: tuple[Row, ...]
    #: Ladder mode shaped this board (public test set of a Ladder phase).
    ladder: bool = False
    #: The statistics' signature (method, samples, seed, ...), "" until computed.
    signature: str = ""
    #: An interval chart (error bars) exists for this test set.
    has_chart: bool = False


@dataclass(frozen=True, slots=True)
class Statistics:
    """What a board shows from a feature app's statistics of its test set."""

    signature: str = ""
    #: run -> (low, high, "value ± half-width")
    intervals: Mapping[int, tuple[float, float, str]] = field(default_factory=dict)
    #: run -> rank band (runs in one band are not significantly different)
    bands: Mapping[int, int] = field(default_factory=dict)
    has_chart: bool = False


#: The extension point for a board's statistics: ``StatisticsSource(test_set)``
#: returns them; set once from a feature app's ``AppConfig.ready()``.
StatisticsSource = Callable[[TestSet], Statistics]
_statistics: list[StatisticsSource] = []


def register_statistics(source: StatisticsSource | None) -> None:
    _statistics[:] = [] if source is None else [source]


def statistics_of(test_set: TestSet) -> Statistics:
    return _statistics[0](test_set) if _statistics else Statistics()


def board(*, test_set: TestSet, include_hidden: bool = False) -> Board:
    """The cached board; ``include_hidden`` only for organisers (see
    ``board_for``)."""
    version = _versions([test_set.pk])[test_set.pk] or 0
    variant = "all" if include_hidden else "shown"
    # Settings are in the key as well as in the version: a change made without
    # ``save()`` (a queryset update) still cannot serve a board of the old ones.
    key = (
        f"leaderboard:{test_set.pk}:{version}:{variant}:"
        f"{test_set.visibility}:{test_set.revealed}:{test_set.gold_version}"
    )
    cached = cache.get(key)
    if cached is None:
        cached = compute(test_set=test_set, include_hidden=include_hidden)
        cache.set(key, cached, timeout=24 * 3600)
    return cached


def board_for(*, test_set: TestSet, user: object) -> Board:
    """The board this viewer may see (the caller checks the test set's score
    visibility first)."""
    from evalhub.competitions.services import access

    include = access.can_see_hidden_runs(user, test_set.phase.task)
    return board(test_set=test_set, include_hidden=include)


def compute(*, test_set: TestSet, include_hidden: bool = False) -> Board:
    task_type = test_set.phase.task.type
    metric_keys = tuple(m.key for m in task_type.metrics)
    primary = task_type.primary_metric

    cached = statistics_of(test_set)
    shown = visibility.released(test_set)
    subs, values = scored_runs(test_set, include_hidden)
    ordered = select(test_set, subs, values, shown)

    rows: list[Row] = []
    prev: float | None = None
    rank = 0
    for position, pk in enumerate(ordered, start=1):
        value = values[pk].get(primary)
        if position == 1 or value != prev:
            rank = position
        prev = value
        sub = subs[pk]
        interval = cached.intervals.get(pk)
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
                interval="" if interval is None else interval[2],
                low=None if interval is None else interval[0],
                high=None if interval is None else interval[1],
                band=None if sub.hidden else cached.bands.get(pk),
                hidden=sub.hidden,
                final=include_hidden and sub.final_selected,
            )
        )
    if any(r.band is None for r in rows if not r.hidden and r.primary is not None):
        # A run the worker has not seen yet: bands would be misleading. (A run
        # whose primary metric is undefined has no band and takes none away.)
        rows = [dataclasses.replace(r, band=None) for r in rows]
    return Board(
        test_set_id=test_set.pk,
        metric_keys=metric_keys,
        metric_labels=tuple(m.label for m in task_type.metrics),
        primary_metric=primary,
        rows=tuple(rows),
        ladder=shown is not None,
        signature=cached.signature,
        has_chart=cached.has_chart,
    )
