"""Leaderboards: the best scored run per team on a test set by the task's primary
metric (ties between a team's runs: the earlier one), standard competition ranking
(1, 2, 2, 4). Computed once per change and cached; a newly scored run invalidates the
test set's entry by bumping a version number in the cache.

Which runs a board ranks is decided here and only here (``_select``, used by the
boards, the statistics worker, the overall ranking and every export):

- public test sets: the best run per team (or, in Ladder mode, the released one);
- private test sets of a phase with ``max_final_runs`` > 0: each team's chosen final
  runs; a team that chose none is ranked by its run with the best *public* score
  (the primary metric averaged over the phase's public test sets; without public
  test sets, its latest run); with ``max_final_runs`` = 0 the best run per team;
- hidden runs: a board for anyone but organisers is computed as if they did not
  exist (ranks, fallbacks and bands included), so it cannot reveal them. The
  organisers' board lists them, marked.

Rows carry the primary metric's bootstrap interval and rank band when the worker has
computed them (``evalhub.rankings``). In Ladder mode (a per-phase setting) a *public*
test set shows, per team, the run the Ladder last released instead of the best one;
private test sets always show the best run."""

from __future__ import annotations

import contextvars
import dataclasses
import hashlib
import logging
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.db import transaction
from django.utils.safestring import SafeString, mark_safe

from evalhub.competitions.models import Phase, Score, Submission, TestSet

log = logging.getLogger(__name__)


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


def _version_key(test_set_id: int) -> str:
    return f"leaderboard:version:{test_set_id}"


def invalidate(*, test_set_id: int, refresh_statistics: bool = True) -> None:
    """Drop the cached board. Scores changed (a scored or rescored run, replaced
    gold, new judgements), so by default the intervals, p-values and Ladder are
    recomputed on the worker too, after the transaction commits (coalesced: a
    burst of scored runs gets a bounded number of refreshes, see
    ``services/refreshes.py``); that job then invalidates the board again without
    asking for another refresh.

    In a worker process (see ``render_ahead_with``) the public boards are rendered
    as they will be after the bump, before it, so that viewers go on getting the
    previous page until the new one is ready instead of one of them rendering it."""
    key = _version_key(test_set_id)
    if _render_ahead:
        try:
            token = _predicted.set({test_set_id: (cache.get(key) or 0) + 1})
            try:
                _render_ahead[0](test_set_id)
            finally:
                _predicted.reset(token)
        except Exception:  # noqa: BLE001 - viewers will render it themselves
            log.warning(
                "could not render test set %s ahead", test_set_id, exc_info=True
            )
    try:
        cache.incr(key)
    except ValueError:
        cache.set(key, 1, timeout=None)
    if refresh_statistics:
        from evalhub.competitions.services import refreshes

        transaction.on_commit(
            lambda: refreshes.request(
                kind=refreshes.STATISTICS, test_set_id=test_set_id
            )
        )


#: The renderer ``invalidate`` calls before a bump (a list of at most one).
_render_ahead: list[Callable[[int], None]] = []
#: Board versions as they will be after the bump being prepared.
_predicted: contextvars.ContextVar[Mapping[int, int] | None] = contextvars.ContextVar(
    "leaderboard_predicted_versions", default=None
)


def render_ahead_with(render: Callable[[int], None] | None) -> None:
    """Have ``invalidate`` call ``render(test_set_id)`` before each bump, with the
    board versions read by ``board`` and ``fragment`` showing the bump already
    (``None``: stop). Worker processes set it (``evalhub.celery``): rendering a
    board of 50 teams takes tens of milliseconds, which a web process would spend
    in one of its threads while slowing the others. If another change lands while
    it renders, its own bump makes a version nobody rendered ahead, and the
    viewers' first request renders it: never a stale page under a new version."""
    _render_ahead[:] = [render] if render is not None else []


def _versions(test_set_ids: Iterable[int]) -> dict[int, int | None]:
    """The current board versions (as they will be, while rendering ahead)."""
    ids = list(test_set_ids)
    found = cache.get_many([_version_key(pk) for pk in ids])
    versions = {pk: found.get(_version_key(pk)) for pk in ids}
    predicted = _predicted.get()
    if predicted:
        versions.update({pk: v for pk, v in predicted.items() if pk in versions})
    return versions


def invalidate_phase(*, phase: Phase) -> None:
    """A team changed its final runs or a run's visibility: every board of the phase
    (and its bands, Ladder and comparison plots) follows."""
    from evalhub.competitions import jobs

    for test_set_id in phase.test_sets.values_list("pk", flat=True):
        invalidate(test_set_id=test_set_id)
        transaction.on_commit(lambda pk=test_set_id: jobs.refresh_analyses.delay(pk))


def board(*, test_set: TestSet, include_hidden: bool = False) -> Board:
    """The cached board; ``include_hidden`` only for organisers (see
    ``board_for``)."""
    version = _versions([test_set.pk])[test_set.pk] or 0
    variant = "all" if include_hidden else "shown"
    key = f"leaderboard:{test_set.pk}:{version}:{variant}"
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


#: Seconds a rendered fragment is kept. Versions make every change visible at once;
#: the timeout only bounds how long a deploy that changes the template shows old HTML.
FRAGMENT_TIMEOUT = 300


def fragment(
    *,
    test_sets: Sequence[TestSet],
    vary_on: Hashable,
    render: Callable[[], str],
) -> SafeString:
    """The leaderboard page's boards as HTML, rendered once per change and viewer
    class. The key holds each test set's board version (bumped by ``invalidate``:
    new scores, statistics, analyses, gold), its name and visibility, and
    ``vary_on`` (the caller's viewer class: what it may see, its time zone), so
    viewers who may see different things never share a fragment.

    After a bump, the first request renders the new version; requests arriving
    while it renders get the previous fragment of the same viewer class (a moment
    stale) instead of rendering it too, so a busy board is rendered once per
    change rather than once per waiting request."""
    key = "leaderboard:fragment:" + _digest((vary_on, _boards_state(test_sets)))
    html = cache.get(key)
    if html is not None:
        return mark_safe(html)  # noqa: S308 - rendered by the template engine
    latest = "leaderboard:fragment-latest:" + _digest(
        (vary_on, tuple((ts.pk, ts.visibility, ts.revealed) for ts in test_sets))
    )
    lock = key + ":rendering"
    if not cache.add(lock, 1, timeout=30):
        stale = cache.get(latest)
        if stale is not None:
            return mark_safe(stale)  # noqa: S308
    try:
        html = render()
        cache.set_many({key: html, latest: html}, timeout=FRAGMENT_TIMEOUT)
    finally:
        cache.delete(lock)
    return mark_safe(html)  # noqa: S308


def _boards_state(test_sets: Sequence[TestSet]) -> tuple:
    """Each test set's name, visibility and board version: what a cached page
    of these boards depends on."""
    versions = _versions(ts.pk for ts in test_sets)
    return tuple(
        (ts.pk, ts.name, ts.visibility, ts.revealed, versions[ts.pk])
        for ts in test_sets
    )


def page_key(*, test_sets: Sequence[TestSet], vary_on: Hashable) -> str:
    """Cache key of a whole page showing these boards: it changes with every board
    version (see ``fragment``) and with ``vary_on``."""
    return "leaderboard:page:" + _digest((vary_on, _boards_state(test_sets)))


def _digest(value: object) -> str:
    return hashlib.sha256(repr(value).encode()).hexdigest()[:40]


def team_key(team_id: int, is_baseline: bool) -> str:
    """The leaderboard's competitor: a team, its baseline runs counted apart."""
    return f"{team_id}:{int(is_baseline)}"


def _scored(
    test_set: TestSet, include_hidden: bool = False
) -> tuple[dict[int, Submission], dict[int, dict[str, float | None]]]:
    runs = Submission.objects.filter(
        phase=test_set.phase,
        status=Submission.Status.SCORED,
        evaluations__test_set=test_set,
    ).select_related("team")
    if not include_hidden:
        runs = runs.filter(hidden=False)
    subs = {s.pk: s for s in runs}
    values: dict[int, dict[str, float | None]] = {pk: {} for pk in subs}
    for sub_id, metric, value in Score.objects.filter(
        test_set=test_set, submission_id__in=subs
    ).values_list("submission_id", "metric", "value"):
        values[sub_id][metric] = value
    return subs, values


def finals_apply(phase: Phase) -> bool:
    """The phase ranks chosen final runs (on its private test sets and overall)."""
    return phase.max_final_runs > 0


def public_scores(phase: Phase, run_ids: Iterable[int]) -> dict[int, float | None]:
    """Each run's public score: the primary metric averaged over the phase's public
    test sets (None when a value is missing), signed so that higher is better."""
    task_type = phase.task.type
    primary = task_type.primary_metric
    sign = 1.0 if task_type.metric(primary).higher_is_better else -1.0
    public = list(
        phase.test_sets.filter(visibility=TestSet.Visibility.PUBLIC).values_list(
            "pk", flat=True
        )
    )
    by_run: dict[int, list[float | None]] = {pk: [] for pk in run_ids}
    for sub_id, value in Score.objects.filter(
        submission_id__in=list(by_run), test_set_id__in=public, metric=primary
    ).values_list("submission_id", "value"):
        by_run[sub_id].append(value)
    return {
        pk: sign * sum(v) / len(v)  # type: ignore[arg-type]
        if len(v) == len(public) and public and None not in v
        else None
        for pk, v in by_run.items()
    }


def final_runs(phase: Phase, subs: Mapping[int, Submission]) -> dict[str, list[int]]:
    """The runs among ``subs`` that represent each competitor in a final ranking:
    its chosen final runs, or, when it chose none, its run with the best public
    score (ties: the earlier run; no public test set: its latest run). A competitor
    whose chosen runs are all missing from ``subs`` (hidden, or still being scored)
    has none; a chosen run that failed does not count as a choice."""
    chosen: dict[str, list[int]] = {}
    for team_id, is_baseline, pk in (
        Submission.objects.filter(phase=phase, final_selected=True)
        .exclude(status__in=[Submission.Status.FAILED, Submission.Status.REJECTED])
        .values_list("team_id", "is_baseline", "pk")
    ):
        chosen.setdefault(team_key(team_id, is_baseline), []).append(pk)
    scores = public_scores(phase, subs)
    has_public = phase.test_sets.filter(visibility=TestSet.Visibility.PUBLIC).exists()

    def fallback_key(pk: int) -> tuple[float, float, int]:
        if not has_public:
            return (0.0, -subs[pk].created_at.timestamp(), -pk)
        score = scores.get(pk)
        return (
            float("inf") if score is None else -score,
            subs[pk].created_at.timestamp(),
            pk,
        )

    out: dict[str, list[int]] = {}
    for pk in sorted(subs, key=fallback_key):
        key = team_key(subs[pk].team_id, subs[pk].is_baseline)
        if key in chosen:
            if pk in chosen[key]:
                out.setdefault(key, []).append(pk)
        else:
            out.setdefault(key, [pk])
    return out


def ranked_runs(
    *,
    phase: Phase,
    subs: Mapping[int, Submission],
    sort_key: Callable[[int], Any],
    final: bool,
) -> list[int]:
    """The runs among ``subs`` a ranking lists, best first by ``sort_key``: with
    ``final`` (a private test set or the overall ranking) and final runs in the
    phase, each competitor's final runs (``final_runs``); otherwise each
    competitor's best run by ``sort_key``."""
    if final and finals_apply(phase):
        ranked = final_runs(phase, subs).values()
        return sorted((pk for pks in ranked for pk in pks), key=sort_key)
    best: dict[str, int] = {}
    for pk in sorted(subs, key=sort_key):
        best.setdefault(team_key(subs[pk].team_id, subs[pk].is_baseline), pk)
    return sorted(best.values(), key=sort_key)


def _select(
    test_set: TestSet,
    subs: Mapping[int, Submission],
    values: Mapping[int, Mapping[str, float | None]],
    shown: Mapping[str, int] | None,
) -> list[int]:
    """The runs a board ranks, best first (the rules are in the module docstring).
    ``shown`` (Ladder mode): the released run per competitor; a competitor the
    Ladder has not seen yet shows its first run, which the Ladder always
    releases."""
    task_type = test_set.phase.task.type
    primary = task_type.primary_metric
    higher = task_type.metric(primary).higher_is_better

    def sort_key(pk: int) -> tuple[float, datetime, int]:
        value = values[pk].get(primary)
        v = float("-inf") if value is None else (value if higher else -value)
        return (-v, subs[pk].created_at, pk)

    if shown is None:
        final = test_set.visibility == TestSet.Visibility.PRIVATE
        return ranked_runs(
            phase=test_set.phase, subs=subs, sort_key=sort_key, final=final
        )
    chosen: dict[str, int] = {}
    for pk in sorted(subs, key=lambda pk: (subs[pk].created_at, pk)):
        chosen.setdefault(team_key(subs[pk].team_id, subs[pk].is_baseline), pk)
    for key, pk in shown.items():
        if key in chosen and pk in subs:
            chosen[key] = pk
    return sorted(chosen.values(), key=sort_key)


def select_runs(*, test_set: TestSet, shown: Mapping[str, int] | None) -> list[int]:
    """Submission ids the public board of ``test_set`` shows, best first (see
    ``_select``)."""
    subs, values = _scored(test_set)
    return _select(test_set, subs, values, shown)


def compute(*, test_set: TestSet, include_hidden: bool = False) -> Board:
    from evalhub.rankings.services import statistics

    task_type = test_set.phase.task.type
    metric_keys = tuple(m.key for m in task_type.metrics)
    primary = task_type.primary_metric
    primary_metric = task_type.metric(primary)

    cached = statistics.cached(test_set=test_set)
    ladder = cached.ladder_applies
    subs, values = _scored(test_set, include_hidden)
    ordered = _select(test_set, subs, values, cached.shown if ladder else None)

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
                interval=statistics.format_interval(primary_metric, interval),
                low=None if interval is None else interval["low"],
                high=None if interval is None else interval["high"],
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
        ladder=ladder,
        signature=cached.signature,
        has_chart=cached.has_chart,
    )
