"""Coalesced task-level refreshes. Every scored run changes its test sets' statistics
(intervals, significance, Ladder) and analyses (comparison plots, difficulty bins),
and each refresh reads *all* the test set's runs: refreshing once per run makes a
burst of N runs cost O(N²). Instead, a burst asks for a refresh N times and gets a
bounded number of them, the last of which sees every run.

The protocol, per (kind, test set), with two cache keys:

- ``request``: ``add`` a *pending* marker; only the request that creates it sends a
  job, delayed so that the runs scored meanwhile join it: ``REFRESH_DELAY`` seconds,
  or ``REFRESH_BACKOFF`` times the last refresh's duration if that is longer. A
  refresh reads every run, so it gets slower as runs accumulate; the back-off keeps
  a sustained burst from spending more than 1 / (1 + REFRESH_BACKOFF) of one
  worker's time on each (kind, test set), however many runs there are. Requests are
  made after the run's transaction commits.
- ``turn`` (the job's first step): delete the pending marker, *then* take the
  *running* lock and read the database. A run committed before the delete is read
  by this job; a request after it creates a new marker and a new job. So the last
  job starts after the last committed run and the final state is exact.
- If another job of the same kind and test set holds the running lock, this one
  asks again (a new delayed job) and returns at once, so a worker never waits on
  another's refresh.

The pending marker expires (``PENDING_TIMEOUT``) in case its job was lost with the
broker; the running lock expires with the job's hard time limit. Both only ever
cause an extra, harmless refresh. Running a refresh job twice recomputes the same
numbers.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator

from django.conf import settings
from django.core.cache import cache

log = logging.getLogger(__name__)

STATISTICS, ANALYSES = "statistics", "analyses"
PENDING_TIMEOUT = 900
RUNNING_TIMEOUT = 330  # the refresh jobs' hard time limit
_clock = time.monotonic


def _pending(kind: str, test_set_id: int) -> str:
    return f"refresh:pending:{kind}:{test_set_id}"


def _running(kind: str, test_set_id: int) -> str:
    return f"refresh:running:{kind}:{test_set_id}"


def _duration(kind: str, test_set_id: int) -> str:
    return f"refresh:seconds:{kind}:{test_set_id}"


def delay(*, kind: str, test_set_id: int) -> float:
    """Seconds a new refresh job waits (see the module docstring)."""
    last = cache.get(_duration(kind, test_set_id)) or 0.0
    return max(float(settings.REFRESH_DELAY), settings.REFRESH_BACKOFF * last)


#: Jobs of the kinds declared by feature apps (``register``): kind -> Celery task.
_jobs: dict[str, object] = {}


def register(kind: str, job: object) -> None:
    """Declare the Celery task (``job.apply_async((test_set_id,), countdown=...)``)
    that refreshes ``kind``; feature apps call it from ``AppConfig.ready()`` (e.g.
    the rankings app for ``STATISTICS``)."""
    _jobs[kind] = job


def _sender(kind: str) -> Callable[[int, float], None]:
    if kind == ANALYSES:
        from evalhub.competitions import queue

        job = queue.job(queue.REFRESH_ANALYSES)
    else:
        job = _jobs[kind]
    return lambda pk, delay: job.apply_async((pk,), countdown=delay)  # type: ignore[attr-defined]


def request(*, kind: str, test_set_id: int) -> bool:
    """Ask for a refresh; returns whether this call sent the job. With the broker
    down the marker is dropped again, so the next request retries."""
    if kind != ANALYSES and kind not in _jobs:
        return False  # no app refreshes this kind
    key = _pending(kind, test_set_id)
    if not cache.add(key, 1, timeout=PENDING_TIMEOUT):
        return False
    try:
        _sender(kind)(test_set_id, delay(kind=kind, test_set_id=test_set_id))
    except Exception:  # noqa: BLE001 - kombu raises several types when Redis is down
        cache.delete(key)
        log.warning(
            "could not enqueue the %s refresh of test set %s", kind, test_set_id
        )
        return False
    return True


@contextlib.contextmanager
def turn(*, kind: str, test_set_id: int) -> Iterator[bool]:
    """Yield True if this refresh may run now (see the module docstring); False if
    another one is running (a new request has been made for after it)."""
    cache.delete(_pending(kind, test_set_id))
    lock = _running(kind, test_set_id)
    if not cache.add(lock, 1, timeout=RUNNING_TIMEOUT):
        request(kind=kind, test_set_id=test_set_id)
        yield False
        return
    started = _clock()
    try:
        yield True
    finally:
        cache.delete(lock)
        cache.set(
            _duration(kind, test_set_id),
            round(_clock() - started, 3),
            timeout=7 * 24 * 3600,
        )
