"""The boards' cache: a version number per test set (in the cache, bumped by
``invalidate``), under which boards, fragments and whole pages are kept.

Invalidation is tied to the transaction that makes the change: the version is
bumped once it commits (``transaction.on_commit``; at once outside a transaction),
so a viewer who reads the board between the change and the commit caches the old
board under a version that the commit then retires. Inside a transaction it is also
bumped at once (no viewer can see the change before the commit; the second bump
retires what was cached meanwhile), so code and tests that read their own
uncommitted change get the new board. The bump is ``add`` + ``INCR``, atomic in
Redis, so concurrent changes never share a version. A version key starts at the
clock in nanoseconds, whoever creates it (a bump or a reader), so a key lost to
eviction or a Redis restart starts again above every version used before and never
finds a board cached under an old number.

Every change of what a board shows invalidates it: scored or rescored runs and
statistics (the services that make them), a run hidden or chosen as final
(``services/finals.py``), and settings saved from any page or the admin
(``competitions/receivers.py``: test sets, phases, tasks, gold files)."""

from __future__ import annotations

import contextvars
import hashlib
import logging
import time
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence

from django.core.cache import cache
from django.db import connection, transaction
from django.utils.safestring import SafeString, mark_safe

from evalhub.competitions import queue, signals
from evalhub.competitions.models import Phase, SharedTask, TestSet

log = logging.getLogger(__name__)


def _version_key(test_set_id: int) -> str:
    return f"leaderboard:version:{test_set_id}"


def _base() -> int:
    """Where a new version key starts: above every version an earlier key of the
    same test set reached (one bump per nanosecond is out of reach)."""
    return time.time_ns()


def _bump(test_set_id: int) -> None:
    key = _version_key(test_set_id)
    cache.add(key, _base(), timeout=None)
    cache.incr(key)


def invalidate(*, test_set_id: int, refresh_statistics: bool = True) -> None:
    """Drop the cached board once the transaction commits (see the module
    docstring). Scores changed (a scored or rescored run, replaced gold, new
    judgements, a run hidden or chosen), so by default ``signals.scores_changed``
    is sent after the commit too: the rankings app recomputes intervals,
    p-values and the Ladder (coalesced, see ``services/refreshes.py``) and then
    invalidates the board again without asking for another refresh.

    In a worker process (see ``render_ahead_with``) the public boards are rendered
    as they will be after the committed bump, before it, so that viewers go on
    getting the previous page until the new one is ready."""
    if connection.in_atomic_block:
        _bump(test_set_id)

    def committed() -> None:
        _render_then_bump(test_set_id)
        if refresh_statistics:
            signals.scores_changed.send(sender=TestSet, test_set_id=test_set_id)

    # robust: the change is committed; a cache or broker failure here is logged
    # (the versions then expire with the cache) rather than failing the request.
    transaction.on_commit(committed, robust=True)


def _render_then_bump(test_set_id: int) -> None:
    key = _version_key(test_set_id)
    if _render_ahead:
        try:
            token = _predicted.set({test_set_id: (cache.get(key) or _base()) + 1})
            try:
                _render_ahead[0](test_set_id)
            finally:
                _predicted.reset(token)
        except Exception:  # noqa: BLE001 - viewers will render it themselves
            log.warning(
                "could not render test set %s ahead", test_set_id, exc_info=True
            )
    _bump(test_set_id)


def invalidate_phase(*, phase: Phase | int, refresh_statistics: bool = True) -> None:
    """Every board of the phase (and its bands, Ladder and comparison plots)
    follows: a team changed its final runs or a run's visibility, or a setting of
    the phase changed."""
    phase_id = phase if isinstance(phase, int) else phase.pk
    for test_set_id in TestSet.objects.filter(phase_id=phase_id).values_list(
        "pk", flat=True
    ):
        invalidate(test_set_id=test_set_id, refresh_statistics=refresh_statistics)
        if refresh_statistics:
            transaction.on_commit(
                lambda pk=test_set_id: queue.job(queue.REFRESH_ANALYSES).delay(pk)
            )


def invalidate_task(*, task: SharedTask | int) -> None:
    """Every board of the task (its state, gold release or title changed: what the
    pages around the boards show, not the ranked runs)."""
    task_id = task if isinstance(task, int) else task.pk
    for test_set_id in TestSet.objects.filter(phase__task_id=task_id).values_list(
        "pk", flat=True
    ):
        invalidate(test_set_id=test_set_id, refresh_statistics=False)


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
    for pk in ids:
        if found.get(_version_key(pk)) is None:  # never bumped, or evicted
            cache.add(_version_key(pk), _base(), timeout=None)
            found[_version_key(pk)] = cache.get(_version_key(pk))
    versions = {pk: found.get(_version_key(pk)) for pk in ids}
    predicted = _predicted.get()
    if predicted:
        versions.update({pk: v for pk, v in predicted.items() if pk in versions})
    return versions


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
