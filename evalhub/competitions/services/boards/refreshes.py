"""Coalesced task-level refreshes. Every scored run changes its test sets' statistics
(intervals, significance, Ladder) and analyses (comparison plots, difficulty bins),
and each refresh reads *all* the test set's runs: refreshing once per run makes a
burst of N runs cost O(N²). Instead, a burst asks for a refresh N times and gets a
bounded number of them, the last of which sees every run.

The protocol, per (kind, test set), on one ``Refresh`` row in the database (the
truth, like a run's row: a Redis restart loses no refresh, and a worker never holds
a delayed job, which kombu 5.7 cannot give back when the broker goes away):

- ``request`` (after the change committed): set the row *due*, unless it already
  is; the runs scored meanwhile join it. It is due ``REFRESH_DELAY`` seconds later,
  or ``REFRESH_BACKOFF`` times the last refresh's duration if that is longer: a
  refresh reads every run, so it gets slower as runs accumulate, and the back-off
  keeps a sustained burst from spending more than 1 / (1 + REFRESH_BACKOFF) of one
  worker's time on each (kind, test set), however many runs there are.
- ``dispatch`` (a beat job, every ``REFRESH_TICK`` seconds): send the job of every
  due row that is not running, once (``sent_at``); a job not begun after
  ``QUEUED_REENQUEUE_AFTER`` seconds was lost with the broker and is sent again.
- ``turn`` (the job's first step): in one ``UPDATE``, clear *due* and claim the
  row (*running*), *then* read the database. A run committed before the claim is
  read by this refresh; a request after it makes the row due again. So the last
  refresh starts after the last committed run and the final state is exact.
- If another refresh of the same kind and test set runs, the job makes the row due
  (for after it) and returns at once, so a worker never waits on another's refresh.

A claim left by a worker killed mid-refresh expires after the refresh jobs' hard
time limit. Duplicates only ever cost an extra, harmless refresh: running a refresh
job twice recomputes the same numbers.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from evalhub.competitions.models import Refresh, TestSet

log = logging.getLogger(__name__)

STATISTICS, ANALYSES = "statistics", "analyses"
RUNNING_TIMEOUT = 330  # the refresh jobs' hard time limit
_clock = time.monotonic


def delay(*, kind: str, test_set_id: int) -> float:
    """Seconds a new refresh waits (see the module docstring)."""
    last = (
        Refresh.objects.filter(kind=kind, test_set_id=test_set_id)
        .values_list("seconds", flat=True)
        .first()
    )
    return max(float(settings.REFRESH_DELAY), settings.REFRESH_BACKOFF * (last or 0.0))


#: Jobs of the kinds declared by feature apps (``register``): kind -> Celery task.
_jobs: dict[str, object] = {}


def register(kind: str, job: object) -> None:
    """Declare the Celery task (``job.delay(test_set_id)``) that refreshes ``kind``;
    feature apps call it from ``AppConfig.ready()`` (e.g. the rankings app for
    ``STATISTICS``)."""
    _jobs[kind] = job


def _known(kind: str) -> bool:
    return kind == ANALYSES or kind in _jobs


def _sender(kind: str) -> Callable[[int], None]:
    if kind == ANALYSES:
        from evalhub.competitions import queue

        job = queue.job(queue.REFRESH_ANALYSES)
    else:
        job = _jobs[kind]
    return lambda pk: job.delay(pk)  # type: ignore[attr-defined]


def _row(kind: str, test_set_id: int) -> Q | None:
    """The (kind, test set)'s row, created if missing; a filter on it. None if the
    test set no longer exists (deleted after the refresh was asked for)."""
    row = Q(kind=kind, test_set_id=test_set_id)
    if Refresh.objects.filter(row).exists():
        return row
    if not TestSet.objects.filter(pk=test_set_id).exists():
        return None
    try:
        with transaction.atomic():
            Refresh.objects.bulk_create(
                [Refresh(kind=kind, test_set_id=test_set_id)], ignore_conflicts=True
            )
    except IntegrityError:  # the test set was deleted meanwhile
        return None
    return row


def request(*, kind: str, test_set_id: int) -> bool:
    """Ask for a refresh (call it once the change committed); returns whether
    this call made it due, False if it already was (the refresh due will read
    this change too). Needs the database only: with Redis down nothing is lost."""
    if not _known(kind):
        return False  # no app refreshes this kind
    row = _row(kind, test_set_id)
    if row is None:
        return False
    due = timezone.now() + timedelta(seconds=delay(kind=kind, test_set_id=test_set_id))
    return bool(Refresh.objects.filter(row, due_at__isnull=True).update(due_at=due))


def _not_running(now: datetime) -> Q:
    return Q(started_at__isnull=True) | Q(
        started_at__lt=now - timedelta(seconds=RUNNING_TIMEOUT)
    )


def dispatch(*, now: datetime | None = None) -> int:
    """Send the job of every refresh due and not running (beat calls it every
    ``REFRESH_TICK`` seconds); returns how many were sent. A job sent but not begun
    after ``QUEUED_REENQUEUE_AFTER`` seconds is presumed lost with the broker and
    sent again; with the broker down, the next call tries again. Each row is
    marked sent compare-and-set, so two dispatchers never both send it."""
    now = now or timezone.now()
    lost = now - timedelta(seconds=settings.QUEUED_REENQUEUE_AFTER)
    due = Refresh.objects.filter(
        Q(sent_at__isnull=True) | Q(sent_at__lt=lost),
        _not_running(now),
        due_at__lte=now,
    ).values_list("pk", "kind", "test_set_id", "sent_at")
    sent = 0
    for pk, kind, test_set_id, sent_at in list(due):
        if not _known(kind):
            continue
        if not Refresh.objects.filter(pk=pk, sent_at=sent_at).update(sent_at=now):
            continue  # another dispatcher sent it, or it began meanwhile
        try:
            _sender(kind)(test_set_id)
        except Exception:  # noqa: BLE001 - kombu raises several types when Redis is down
            Refresh.objects.filter(pk=pk, sent_at=now).update(sent_at=None)
            log.warning(
                "could not send the %s refresh of test set %s; next tick retries",
                kind,
                test_set_id,
            )
            break  # the broker is down: the others would fail the same way
        sent += 1
    return sent


@contextlib.contextmanager
def turn(*, kind: str, test_set_id: int) -> Iterator[bool]:
    """Yield True if this refresh may run now (see the module docstring); False if
    another one is running (the row is due again, for after it)."""
    now = timezone.now()
    row = _row(kind, test_set_id)
    if row is None:
        yield False
        return
    claimed = Refresh.objects.filter(row, _not_running(now)).update(
        due_at=None, sent_at=None, started_at=now
    )
    if not claimed:
        request(kind=kind, test_set_id=test_set_id)
        # This job is used up: the row's refresh is sent again once the running
        # one has ended.
        Refresh.objects.filter(row).update(sent_at=None)
        yield False
        return
    started = _clock()
    try:
        yield True
    except BaseException:
        # It did not complete (Redis went away in the middle, a time limit): the
        # claim cleared *due*, so make it due again, or the runs it was to show
        # would wait for the next change.
        _due_again(row, kind=kind, test_set_id=test_set_id)
        raise
    finally:
        Refresh.objects.filter(row, started_at=now).update(
            started_at=None, seconds=round(_clock() - started, 3)
        )


def _due_again(row: Q, *, kind: str, test_set_id: int) -> None:
    try:
        wait = timedelta(seconds=delay(kind=kind, test_set_id=test_set_id))
        Refresh.objects.filter(row, due_at__isnull=True).update(
            due_at=timezone.now() + wait
        )
    except Exception:  # noqa: BLE001 - the database too: the original error is raised
        log.warning("could not mark the %s refresh of test set %s due again", kind, test_set_id)  # fmt: skip
