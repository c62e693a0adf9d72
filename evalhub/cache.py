"""Django's Redis cache, reusing one client per connection pool.

Django's ``RedisCacheClient`` builds a new ``redis.Redis`` for every cache operation,
and building one fills its table of response callbacks (about 170 entries): measured
here at about a fifth of a millisecond per operation, several times the round trip
to Redis on loopback, on pages that make three or four cache reads. A ``redis.Redis``
is safe to share between threads (it takes a connection from its pool per command),
so one per pool is enough."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import TypeVar

from django.core.cache.backends import redis as django_redis

T = TypeVar("T")
log = logging.getLogger(__name__)


class RedisCacheClient(django_redis.RedisCacheClient):
    def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
        super().__init__(*args, **kwargs)
        self._clients: dict[int, object] = {}

    def get_client(self, key=None, *, write=False):  # noqa: ANN001, ANN201
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients.setdefault(
                id(pool), self._client(connection_pool=pool)
            )
        return client


class RedisCache(django_redis.RedisCache):
    def __init__(self, server, params) -> None:  # noqa: ANN001
        super().__init__(server, params)
        self._class = RedisCacheClient

    def clear(self) -> None:
        """Delete this cache's keys only (those under its KEY_PREFIX). Django's
        ``clear`` empties the whole Redis database, and the cache shares it with
        Celery's broker under ``manage.py up`` (and may in production): it would
        drop every queued job, and every other cache's keys."""
        client = self._cache.get_client(write=True)
        pattern = re.sub(r"([*?\[\]\\])", r"\\\1", self.key_prefix) + ":*"
        batch: list[bytes] = []
        for key in client.scan_iter(match=pattern, count=1000):
            batch.append(key)
            if len(batch) == 1000:
                client.delete(*batch)
                batch = []
        if batch:
            client.delete(*batch)


#: What ``_read`` answers when the cache cannot be reached.
_UNREACHABLE = object()


def _read(key: str) -> object:
    """The cache's value under ``key`` (None: none), or ``_UNREACHABLE`` (logged)."""
    from django.core.cache import cache

    try:
        return cache.get(key)
    except Exception:  # noqa: BLE001 - Redis down: the caller answers from the database
        log.warning("cache unreachable; computing %s afresh", key, exc_info=True)
        return _UNREACHABLE


def _store(
    key: str,
    value: object,
    timeout: int,
    put: Callable[[str, object, int], None] | None = None,
) -> None:
    """Keep ``value`` under ``key`` (``put``, or the cache's ``set``); an
    unreachable cache is logged."""
    from django.core.cache import cache

    try:
        (put or cache.set)(key, value, timeout)
    except Exception:  # noqa: BLE001
        log.warning("cache unreachable; %s not kept", key, exc_info=True)


def kept(
    key: str,
    compute: Callable[[], T],
    timeout: int,
    *,
    put: Callable[[str, object, int], None] | None = None,
) -> T:
    """``compute()``, kept in the default cache under ``key`` for ``timeout`` seconds.
    For answers asked for again and again (the header's, shown on every page; an
    embedding task's origins; the boards' derived values, whose ``put`` also notes
    the key, ``fragments.kept``): with the cache unreachable the page still works,
    computing the answer afresh (logged)."""
    value = _read(key)
    if value is _UNREACHABLE:
        return compute()
    if value is None:
        value = compute()
        _store(key, value, timeout, put)
    return value  # type: ignore[return-value]


def kept_latest(slot: str, digest: str, compute: Callable[[], T], timeout: int) -> T:
    """``compute()``, kept under ``slot`` with ``digest`` (of what it is computed
    from) for ``timeout`` seconds: handed out while the digest is the same,
    computed again and put in its place when it changed. One entry per slot,
    however often what it shows changes (a figure kept under a digest of what it
    draws would leave a superseded drawing per change until it expired); with the
    cache unreachable, computed afresh (logged), as ``kept`` does."""
    held = _read(slot)
    if held is _UNREACHABLE:
        return compute()
    if isinstance(held, tuple) and len(held) == 2 and held[0] == digest:
        return held[1]
    value = compute()
    _store(slot, (digest, value), timeout)
    return value


#: How to name each per-user answer of the site header, registered by the app that
#: owns it (``register_header_key``): the core names no feature app.
_HEADER_KEYS: list[Callable[[int], str]] = []
#: Bumped by every ``forget``: header answers a user object holds from before are
#: read again (a request may change a role and then render the header).
_forgotten = [0]


def register_header_key(key_of: Callable[[int], str]) -> None:
    """Declare ``key_of(user_id)``, the cache key of one of the site header's
    per-user answers, so ``kept_for_user`` reads it with the others in one round
    trip."""
    if key_of not in _HEADER_KEYS:
        _HEADER_KEYS.append(key_of)


def kept_for_user(user: object, key: str, compute: Callable[[], T], timeout: int) -> T:
    """``kept(key, compute, timeout)`` for one of the header's per-user answers: the
    first one asked for reads every registered answer of ``user`` in one
    ``get_many``, held on the user object (one request's: nothing is shared
    between viewers) until the next ``forget``."""
    from django.core.cache import cache

    held = getattr(user, "_evalhub_header", None)
    if held is None or held[0] != _forgotten[0]:
        generation = _forgotten[0]
        pk = user.pk  # type: ignore[attr-defined]
        try:
            values = cache.get_many([key_of(pk) for key_of in _HEADER_KEYS])
        except Exception:  # noqa: BLE001 - Redis down: each answer from the database
            log.warning("cache unreachable; header answers afresh", exc_info=True)
            return compute()
        held = (generation, values)
        user._evalhub_header = held  # type: ignore[attr-defined]
    values = held[1]
    if key in values:
        return values[key]
    value = kept(key, compute, timeout)
    if held[0] == _forgotten[0]:
        values[key] = value
    return value


def forget(keys: list[str]) -> None:
    """Delete ``keys`` now and again once the transaction commits (a request may have
    read the old rows and kept them in between); an unreachable cache is logged (the
    keys expire on their own)."""
    from django.core.cache import cache
    from django.db import transaction

    def delete() -> None:
        try:
            cache.delete_many(keys)
        except Exception:  # noqa: BLE001
            log.warning("cache unreachable; %s not forgotten", keys, exc_info=True)

    if keys:
        _forgotten[0] += 1
        delete()
        transaction.on_commit(delete)
