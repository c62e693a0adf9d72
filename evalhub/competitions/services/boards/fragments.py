"""The leaderboard page's cached HTML: the boards fragment, rendered once per
change and viewer class, and the whole pages showing boards (the anonymous page,
a signed-in audience's shell), rendered once per change and audience; for both,
the previous rendering is served while another request renders the new one. Every
key holds the board versions of ``boardcache`` (which invalidates them)."""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from typing import TypeVar

from django.core.cache import cache
from django.utils.safestring import SafeString, mark_safe

from evalhub import cache as shared_cache
from evalhub.competitions.models import BoardVersion, TestSet
from evalhub.competitions.services.boards.boardcache import store, versions

T = TypeVar("T")

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
    if html is None:
        html = _render_once(
            key=key,
            latest=_latest_key("fragment", vary_on, test_sets),
            state=state,
            render=render,
            keep=store,
        )
    return mark_safe(html)  # noqa: S308 - rendered by the template engine


def page(
    *,
    test_sets: Sequence[TestSet],
    vary_on: Hashable,
    render: Callable[[], T],
) -> T:
    """A whole page showing these boards, shared by the viewers of ``vary_on``
    (the anonymous page, a signed-in page's shell): kept under ``page_key``,
    rendered once per change. As with ``fragment``, requests arriving while
    another renders it get the previous page of the same ``vary_on`` if it shows
    nothing taken off the boards since; a page rendered around a previous
    fragment is served but neither kept nor remembered as the previous page."""
    state = _boards_state(test_sets)
    key = _page_key(vary_on, state)
    kept = cache.get(key)
    if kept is not None:
        return kept
    return _render_once(
        key=key,
        latest=_latest_key("page", vary_on, test_sets),
        state=state,
        render=render,
        keep=cache.set,
    )


def kept_page(*, test_sets: Sequence[TestSet], vary_on: Hashable) -> object | None:
    """The page ``page`` keeps for these boards as they are now, or, while another
    request renders it, the previous one (as ``page`` serves it); None: the
    caller renders it (through ``page``). A read-only look, for pages served
    without building what their rendering needs."""
    key = page_key(test_sets=test_sets, vary_on=vary_on)
    kept = cache.get(key)
    if kept is not None:
        return kept
    latest = _latest_key("page", vary_on, test_sets)
    found = cache.get_many([key + ":rendering", latest])
    if key + ":rendering" not in found:
        return None
    return _previous(found.get(latest))


def _latest_key(kind: str, vary_on: Hashable, test_sets: Sequence[TestSet]) -> str:
    """Where the last ``kind`` rendered for ``vary_on`` is remembered with the
    board versions it was drawn at. Replaced gold starts a new one: nothing drawn
    on the old gold is served as a previous page."""
    return f"leaderboard:{kind}-latest:" + _digest(
        (
            vary_on,
            tuple(
                (ts.pk, ts.visibility, ts.revealed, ts.gold_version) for ts in test_sets
            ),
        )
    )


def _render_once(
    *,
    key: str,
    latest: str,
    state: tuple,
    render: Callable[[], T],
    keep: Callable[[str, object, int], None],
) -> T:
    """``render()`` and ``keep`` it under ``key`` (and as the latest), unless
    another request holds ``key``'s render lock: then the latest still shown."""
    lock = key + ":rendering"
    if not cache.add(lock, 1, timeout=30):
        previous = _previous(cache.get(latest))
        if previous is not None:
            served = _stale_served.get()
            if served is not None:
                served[0] = True
            return previous
    drawn = {pk: _number(v) for pk, *_, v in state}
    try:
        with noting_stale() as stale:
            html = render()
        if not stale[0]:
            keep(key, html, FRAGMENT_TIMEOUT)
            cache.set(latest, (drawn, html), FRAGMENT_TIMEOUT)
    finally:
        cache.delete(lock)
    return html


def _previous(latest: object) -> object | None:
    """The remembered latest rendering (``_latest_key``), if it shows nothing
    taken off the boards since it was drawn."""
    if isinstance(latest, tuple) and _still_shown(latest[0]):
        return latest[1]
    return None


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
        outer = _stale_served.get()
        if served[0] and outer is not None:
            outer[0] = True  # a page around this one is not current either


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
    return _page_key(vary_on, _boards_state(test_sets))


def kept(
    *, test_sets: Sequence[TestSet], vary_on: Hashable, compute: Callable[[], T]
) -> T:
    """``compute()``, a value derived from these boards for the viewers of
    ``vary_on`` (the overall ranking, an export's text), kept under ``page_key``
    for ``FRAGMENT_TIMEOUT`` seconds: every board version is in the key, so a
    change is computed anew by the next request, and values of superseded
    versions leave the cache soon. With the cache unreachable it is computed
    afresh (logged)."""
    key = page_key(test_sets=test_sets, vary_on=vary_on)
    return shared_cache.kept(key, compute, FRAGMENT_TIMEOUT, put=store)


def _page_key(vary_on: Hashable, state: tuple) -> str:
    return "leaderboard:page:" + _digest((vary_on, state))


def _digest(value: object) -> str:
    return hashlib.sha256(repr(value).encode()).hexdigest()[:40]
