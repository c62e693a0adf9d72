"""Leaderboards: the best scored run per team on a test set by the phase's ranking
metric (``services/boards/ranking.py``: the task type's primary metric unless the
organisers chose another) (ties between a team's runs: the earlier one), standard competition ranking
(1, 2, 2, 4). Computed once per change and cached under the test set's board version
(``services/boards/boardcache.py``); which runs a board ranks is decided in
``services/boards/selection.py``, and what the public may see of a score (hidden runs,
private test sets, the Ladder) in ``services/boards/visibility.py``.

Rows carry the primary metric's bootstrap interval and rank band when a feature app
provides them (the rankings app registers a ``StatisticsSource`` at start-up).
In Ladder mode (a per-phase setting of the rankings app) a *public* test set
shows, per team, only the run the Ladder released; private test sets are unaffected."""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import logging
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from django.core.cache import cache

from evalhub.competitions.models import TestSet, Track
from evalhub.competitions.services import roles
from evalhub.competitions.services.boards import boardcache, ranking, visibility
from evalhub.competitions.services.boards import coverage as cells
from evalhub.competitions.services.boards.selection import scored_runs, select

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Row:
    rank: int
    team: str
    submission_id: int
    method_name: str
    submitted_at: datetime
    is_baseline: bool
    #: (metric key, value, formatted) in the board's column order
    metrics: tuple[tuple[str, float | None, str], ...]
    primary: float | None
    #: Bootstrap interval of the primary metric ("" until computed).
    interval: str = ""
    low: float | None = None
    high: float | None = None
    #: Rank band (the one band rule: tasks/common/resampling/bands.py).
    band: int | None = None
    #: Only on organisers' boards: the team hid the run / chose it as final.
    hidden: bool = False
    final: bool = False
    #: The run's track (slug and name; "" in a phase without tracks): marks each
    #: row of the all-tracks board.
    track: str = ""
    track_name: str = ""
    #: The team's id: the page marks the viewer's own rows by it (outside the
    #: cached fragment, ``services/boards/own_rows.py``).
    team_id: int = 0
    #: A mean over fewer cells than its task type's ("1 of 3 word classes
    #: judged"; ``services/boards/coverage.py``), "" when complete.
    coverage: str = ""


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
    #: The track this board ranks ("": every track, or a phase without tracks).
    track: str = ""
    #: The statistics' legend (``Statistics.legend``).
    legend: str = ""
    #: The rule ranking a mean over fewer cells, when a row is marked ("" else).
    coverage_rule: str = ""
    #: The metric keys shown by default, in order (``ranking.Ranking.columns``).
    shown_keys: tuple[str, ...] = ()
    #: Which metric ranks the board (``ranking.ranked_by``).
    ranked_by: str = ""


@dataclass(frozen=True, slots=True)
class Statistics:
    """What a board shows from a feature app's statistics of its test set."""

    signature: str = ""
    #: run -> (low, high, "value ± half-width")
    intervals: Mapping[int, tuple[float, float, str]] = field(default_factory=dict)
    #: run -> rank band (runs in one band are not significantly different)
    bands: Mapping[int, int] = field(default_factory=dict)
    has_chart: bool = False
    #: What the board's bands mean (unit, n, rule, correction), or why there are
    #: none ("2 documents: no difference can be significant at α = 0.05 ...").
    legend: str = ""


#: The extension point for a board's statistics: ``StatisticsSource(test_set,
#: track_id)`` returns them (the bands of that track's board; ``track_id`` None:
#: of the board of every track); set once from a feature app's
#: ``AppConfig.ready()``.
StatisticsSource = Callable[[TestSet, int | None], Statistics]
_statistics: list[StatisticsSource] = []


def register_statistics(source: StatisticsSource | None) -> None:
    _statistics[:] = [] if source is None else [source]


def statistics_of(test_set: TestSet, track_id: int | None = None) -> Statistics:
    return _statistics[0](test_set, track_id) if _statistics else Statistics()


#: Part of a cached board's key: changed with ``Row``'s fields, so that a process of
#: a new release never reads a board pickled by an older one.
ROW_LAYOUT = "r5"


def board(
    *, test_set: TestSet, include_hidden: bool = False, track: Track | None = None
) -> Board:
    """The cached board of ``test_set`` in ``track`` (None: every track, each row
    marked with its track; a phase without tracks has only this one);
    ``include_hidden`` only for organisers (see ``board_for``). Boards are per
    (test set, track) and share the test set's version: whatever invalidates a
    test set invalidates the boards of all its tracks."""
    key = _key(test_set, include_hidden, track)
    held = _read.get()
    if held is not None and key in held:
        return held[key]
    cached = cache.get(key)
    if cached is None:
        cached = _computed_once(key)
    if cached is None:
        try:
            cached = compute(
                test_set=test_set, include_hidden=include_hidden, track=track
            )
            boardcache.store(key, cached, timeout=24 * 3600)
            if not include_hidden and track is None:  # rendered ahead with the board
                _store_leader(key, cached)
        finally:
            with contextlib.suppress(Exception):
                cache.delete(key + ":computing")
    if held is not None:
        held[key] = cached
    return cached


#: Inside ``read_once``: the boards read so far, by cache key.
_read: contextvars.ContextVar[dict[str, Board] | None] = contextvars.ContextVar(
    "boards_read", default=None
)


@contextlib.contextmanager
def read_once() -> Iterator[None]:
    """Within the block each board is read from the cache once: rendering the
    boards asks for a board once per figure it checks (``access.artefact_current``),
    and a board of 1,000 rows takes ~15 ms to unpickle. A key names one version of
    one board, so what is held is what the cache holds."""
    token = _read.set({})
    try:
        yield
    finally:
        _read.reset(token)


#: Seconds a request waits for the board another one is computing (a board of
#: 1,000 rows takes a few hundred milliseconds) before computing it too.
COMPUTING_WAIT = 5.0


def _computed_once(key: str) -> Board | None:
    """None: this caller computes the board (it took the key's lock, or waited
    ``COMPUTING_WAIT`` in vain); else the board another process or thread computed
    meanwhile. Without it every request arriving after a change computed the same
    board: on a board of 1,000 teams, tens of requests at once, for seconds."""
    try:
        if cache.add(key + ":computing", 1, timeout=int(COMPUTING_WAIT) * 2):
            return None
        deadline = time.monotonic() + COMPUTING_WAIT
        while time.monotonic() < deadline:
            time.sleep(0.02)
            found = cache.get(key)
            if found is not None:
                return found
    except Exception:  # noqa: BLE001 - without the cache every caller computes
        log.warning("board %s computed without its lock", key, exc_info=True)
    return None


def _key(test_set: TestSet, include_hidden: bool, track: Track | None) -> str:
    version = boardcache.version(test_set)
    variant = "all" if include_hidden else "shown"
    # Settings are in the key as well as in the version: a change made without
    # ``save()`` (a queryset update) still cannot serve a board of the old ones.
    return (
        f"leaderboard:{ROW_LAYOUT}:{test_set.pk}:{version}:{variant}:"
        f"{test_set.visibility}:{test_set.revealed}:{test_set.gold_version}:"
        f"{'all' if track is None else f'track-{track.pk}'}"
    )


def leading_row(*, test_set: TestSet) -> tuple[Row | None, str]:
    """The public board's (``board`` of every track, no hidden run) first row
    that is not a baseline (None: none) and its primary metric, cached apart
    from the board under the same version: the link preview of every
    leaderboard page needs one row, and a board of 1,000 rows takes ~15 ms to
    read from the cache."""
    key = _key(test_set, False, None)
    cached = cache.get(key + ":leader")
    if cached is None:
        cached = _store_leader(key, board(test_set=test_set))
    return cached


def _store_leader(key: str, shown: Board) -> tuple[Row | None, str]:
    row = next((r for r in shown.rows if not r.is_baseline), None)
    leader = (row, shown.primary_metric)
    boardcache.store(key + ":leader", leader, timeout=24 * 3600)
    return leader


def board_for(*, test_set: TestSet, user: object, track: Track | None = None) -> Board:
    """The board this viewer may see (the caller checks the test set's score
    visibility first), in ``track`` (None: every track)."""
    # Organisers see every run, hidden ones marked (``access.can_see_hidden_runs``).
    include = roles.is_organiser(user, test_set.phase.task)
    return board(test_set=test_set, include_hidden=include, track=track)


def track_boards(
    *, test_set: TestSet, user: object, track: Track | None = None
) -> list[tuple[Track | None, Board]]:
    """The boards of ``test_set`` per track as ``user`` may see them: ``track``'s
    alone, or, without one, each of the phase's tracks in order (a phase without
    tracks: its one board, with track None). The caller checks the test set's
    score visibility first."""
    from evalhub.competitions.services.data import tracks

    chosen = [track] if track is not None else tracks.phase_tracks(test_set.phase)
    if not chosen:
        return [(None, board_for(test_set=test_set, user=user))]
    return [(t, board_for(test_set=test_set, user=user, track=t)) for t in chosen]


def compute(
    *, test_set: TestSet, include_hidden: bool = False, track: Track | None = None
) -> Board:
    task_type = test_set.phase.task.type
    chosen = ranking.of(test_set.phase)
    metric_keys = ranking.ordered_metrics(test_set.phase, chosen)
    primary = chosen.metric
    track_id = None if track is None else track.pk

    cached = statistics_of(test_set, track_id)
    # The gate's answer, asked once: the rows it selects and the runs it shows.
    released = visibility.released(test_set)
    if include_hidden:
        subs, values = scored_runs(
            test_set, viewer=visibility.ORGANISERS, track_id=track_id
        )
    else:  # the public's, as they will see it (shown only once they may)
        subs, values = scored_runs(
            visibility.once_public(test_set),
            viewer=visibility.PUBLIC,
            track_id=track_id,
            gate=released,
        )
    coverage = cells.coverage_of(test_set, subs)
    ordered = select(test_set, subs, values, released, coverage)

    rows: list[Row] = []
    prev: tuple[object, float | None] | None = None
    rank = 0
    for position, pk in enumerate(ordered, start=1):
        value = values[pk].get(primary)
        if position == 1 or (cells.share(coverage, pk), value) != prev:
            rank = position
        prev = (cells.share(coverage, pk), value)
        marked = cells.mark(test_set, coverage, pk)
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
                    for m in map(task_type.metric, metric_keys)
                ),
                primary=value,
                interval="" if interval is None else interval[2],
                low=None if interval is None else interval[0],
                high=None if interval is None else interval[1],
                band=None if sub.hidden or marked else cached.bands.get(pk),
                hidden=sub.hidden,
                final=include_hidden and sub.final_selected,
                track=sub.track.slug if sub.track_id else "",
                track_name=sub.track.name if sub.track_id else "",
                team_id=sub.team_id,
                coverage=marked,
            )
        )
    if any(
        r.band is None
        for r in rows
        if not r.hidden and not r.coverage and r.primary is not None
    ):
        # A run the worker has not seen yet: bands would be misleading. (A run
        # whose primary metric is undefined, or a mean over fewer cells, has no
        # band and takes none away.)
        rows = [dataclasses.replace(r, band=None) for r in rows]
    return Board(
        test_set_id=test_set.pk,
        metric_keys=metric_keys,
        metric_labels=tuple(task_type.metric(k).label for k in metric_keys),
        primary_metric=primary,
        rows=tuple(rows),
        ladder=released is not None,
        signature=cached.signature,
        has_chart=cached.has_chart,
        track="" if track is None else track.slug,
        legend=cached.legend,
        coverage_rule=cells.rule(test_set) if any(r.coverage for r in rows) else "",
        shown_keys=chosen.columns,
        ranked_by=ranking.ranked_by(test_set.phase, chosen),
    )
