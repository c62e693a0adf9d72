"""The leaderboard page's cached HTML: the boards fragment, rendered once per
change and viewer class, with the previous fragment served while another request
renders the new one, and the keys of whole pages showing boards. Every key holds
the board versions of ``boardcache`` (which invalidates them)."""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence

from django.core.cache import cache
from django.utils.safestring import SafeString, mark_safe

from evalhub.competitions.models import BoardVersion, TestSet
from evalhub.competitions.services.boards.boardcache import store, versions

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
    change rather than once per waiting request. The previous fragment is never
    one drawn before a change that took something off the boards (a run hidden, a
    team renamed, a Ladder decision: ``invalidate(..., retract=True)``) or on
    replaced gold."""
    state = _boards_state(test_sets)
    key = "leaderboard:fragment:" + _digest((vary_on, state))
    html = cache.get(key)
    if html is not None:
        return mark_safe(html)  # noqa: S308 - rendered by the template engine
    # Replaced gold starts a new fallback too: no board of the old gold is served.
    latest = "leaderboard:fragment-latest:" + _digest(
        (
            vary_on,
            tuple(
                (ts.pk, ts.visibility, ts.revealed, ts.gold_version) for ts in test_sets
            ),
        )
    )
    lock = key + ":rendering"
    if not cache.add(lock, 1, timeout=30):
        stale = cache.get(latest)
        if isinstance(stale, tuple) and _still_shown(stale[0]):
            served = _stale_served.get()
            if served is not None:
                served[0] = True
            return mark_safe(stale[1])  # noqa: S308
    drawn = {pk: _number(v) for pk, *_, v in state}
    try:
        html = render()
        store(key, html, FRAGMENT_TIMEOUT)
        cache.set(latest, (drawn, html), FRAGMENT_TIMEOUT)
    finally:
        cache.delete(lock)
    return mark_safe(html)  # noqa: S308


_stale_served: contextvars.ContextVar[list[bool] | None] = contextvars.ContextVar(
    "leaderboard_stale_served", default=None
)


@contextlib.contextmanager
def noting_stale() -> Iterator[list[bool]]:
    """``[True]`` once ``fragment`` served a previous fragment in the block (the
    new one was being rendered elsewhere): a page built on it must not be cached
    under the new versions, or it would show the old boards until the next change."""
    served = [False]
    token = _stale_served.set(served)
    try:
        yield served
    finally:
        _stale_served.reset(token)


def _number(version: int | str) -> int:
    """The stored version in a key's version (``versions``: "7~token" inside the
    transaction that changed the board)."""
    return int(str(version).split("~", 1)[0])


def _still_shown(drawn: Mapping[int, int]) -> bool:
    """A fragment drawn at these board versions shows nothing taken off the boards
    since (``BoardVersion.retracted``)."""
    retracted = dict(
        BoardVersion.objects.filter(test_set_id__in=list(drawn)).values_list(
            "test_set_id", "retracted"
        )
    )
    return all(v >= retracted.get(pk, 0) for pk, v in drawn.items())


def _boards_state(test_sets: Sequence[TestSet]) -> tuple:
    """Each test set's name, visibility and board version: what a cached page
    of these boards depends on."""
    versions_ = versions(test_sets)
    return tuple(
        (ts.pk, ts.name, ts.visibility, ts.revealed, versions_[ts.pk])
        for ts in test_sets
    )


def page_key(*, test_sets: Sequence[TestSet], vary_on: Hashable) -> str:
    """Cache key of a whole page showing these boards: it changes with every board
    version (see ``fragment``) and with ``vary_on``."""
    return "leaderboard:page:" + _digest((vary_on, _boards_state(test_sets)))


def _digest(value: object) -> str:
    return hashlib.sha256(repr(value).encode()).hexdigest()[:40]
