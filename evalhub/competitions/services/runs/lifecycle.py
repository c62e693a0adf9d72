"""A run's life: the one writer of ``Submission.status``.

Every status change goes through this module (``tests/competitions/
test_run_lifecycle.py`` proves that no other module writes ``status``), each as a
compare-and-set on the row (``filter(pk, status=from).update(status=to) == 1``)
checked against the table of allowed transitions, ``TRANSITIONS``::

    (new) ─┬─> validating ─┬─> queued ──> scoring ─┬─> scored ─┐
           ├─> queued      └─> rejected            ├─> failed ─┤
           └─> rejected                            └─> queued  │
                          queued <─────────── (scored again) ──┘

    (archived) ──> scored, failed or rejected as recorded; queued otherwise

Invariants, each kept here and nowhere else:

- **A score is stored only on current data.** The worker notes the gold version of
  every test set of the phase before it reads any file; the final transaction locks
  the phase row and compares: if a test set was added, deleted or had its private
  files changed meanwhile, nothing is stored and the run goes back to the queue.
  Every change of a test set's private files (add, replace, delete) takes the same
  lock, bumps the version (``data_changed``) and queues again every run of the phase
  that was scored or failed on the old data, so a run in any state ends scored on the
  current gold: queued and validating runs read it when their turn comes, a run being
  scored is caught by the final check. A run is scored on the test sets that have
  their inputs and gold (``data/taskdata.scorable``): the gold file that completes a
  new test set is such a change, so the runs scored before it are scored on it too,
  and a test set still being set up disturbs no run.
- **Every stage has an attempt cap and a terminal state.** Scoring: a run whose
  worker was lost is queued again, and failed after ``SCORING_MAX_ATTEMPTS``.
  Validation: a job re-sent ``VALIDATION_MAX_ATTEMPTS`` times without a decision
  rejects the run (rejected runs do not count against the limits).
- **A run's place in its competitor's history is its commit order**: ``created_at``
  is taken under the team's lock, after the team's latest run (``stamp``), so a
  slow upload that started first but committed second comes second (the Ladder
  replays runs in this order).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Max, Q, QuerySet
from django.utils import timezone

from evalhub.competitions import queue, signals
from evalhub.competitions.models import Phase, Submission, Team, TestSet

log = logging.getLogger(__name__)

S = Submission.Status

#: The allowed status changes: ``None`` is a row not stored yet.
TRANSITIONS: Mapping[str | None, frozenset[str]] = {
    None: frozenset({S.VALIDATING, S.QUEUED, S.REJECTED}),
    S.VALIDATING: frozenset({S.QUEUED, S.REJECTED}),
    S.QUEUED: frozenset({S.SCORING}),
    S.SCORING: frozenset({S.SCORED, S.FAILED, S.QUEUED}),
    S.SCORED: frozenset({S.QUEUED}),
    S.FAILED: frozenset({S.QUEUED}),
    S.REJECTED: frozenset(),
}

#: The runs ``rescore`` queues again; a run in any other state is left as it is.
RESCORABLE = (S.SCORED, S.FAILED)

#: Failed runs that new data may fix (a format error is the file's own).
_RETRIABLE_FAILED = ~Q(failure_category=Submission.Failure.FORMAT)


class TransitionRefused(ValueError):
    """A status change the table does not allow (a bug in the caller)."""


def _check(sources: Iterable[str | None], target: str) -> None:
    for source in sources:
        if target not in TRANSITIONS[source]:
            raise TransitionRefused(f"a run cannot go from {source} to {target}")


def _move(
    rows: QuerySet[Submission], sources: tuple[str, ...], target: str, **fields: object
) -> int:
    """Compare-and-set: the rows among ``rows`` still in one of ``sources`` move to
    ``target`` (with ``fields``); returns how many did."""
    _check(sources, target)
    return rows.filter(status__in=sources).update(status=target, **fields)


# --- a new run ---------------------------------------------------------------------
def new(*, status: str, **row: object) -> Submission:
    """An unsaved run in its first state (the caller saves it, with its file)."""
    _check([None], status)
    return Submission(status=status, **row)


def stamp(*, team: Team, now: datetime | None = None) -> datetime:
    """The time that places a new run of ``team`` in its history: now, or just after
    the team's latest run if that is later (clocks of several web machines). Call it
    holding the team's lock (``select_for_update``), so it is the commit order."""
    now = now or timezone.now()
    latest = Submission.objects.filter(team=team).aggregate(m=Max("created_at"))["m"]
    if latest is not None and latest >= now:
        return latest + timedelta(microseconds=1)
    return now


def imported(run: Submission, *, status: str) -> Submission:
    """An archived run (``services/archive/reader.py``), not saved yet, in the state
    its archive recorded, with the scores and results the archive brings. A run
    the archive caught on its way (validating, queued or being scored) is queued
    here: scoring it is how it ends; its job is sent once the import commits."""
    if status not in S.values:
        raise TransitionRefused(f"a run cannot be imported as {status!r}")
    if status in Submission.TERMINAL_STATES:
        run.status = status
        return run
    run.status = S.QUEUED
    run.worker, run.heartbeat_at, run.started_at = "", None, None
    run.attempts, run.enqueued_at = 0, timezone.now()
    transaction.on_commit(lambda pk=run.pk: queue.enqueue_scoring(pk))
    return run


# --- validation --------------------------------------------------------------------
def validated(pk: int) -> bool:
    """validating -> queued (its scoring job is sent after commit)."""
    with transaction.atomic():
        moved = _move(
            Submission.objects.filter(pk=pk),
            (S.VALIDATING,),
            S.QUEUED,
            enqueued_at=timezone.now(),
            attempts=0,
        )
        if moved:
            transaction.on_commit(lambda: queue.enqueue_scoring(pk))
    return bool(moved)


def reject(pk: int, *, message: str, category: str = "format") -> bool:
    """validating -> rejected, with every problem (not counted against limits)."""
    return bool(
        _move(
            Submission.objects.filter(pk=pk),
            (S.VALIDATING,),
            S.REJECTED,
            failure_category=category,
            failure_message=message,
            finished_at=timezone.now(),
        )
    )


def resend_validation(*, now: datetime, before: datetime) -> int:
    """Re-send the job of runs ``validating`` since before ``before`` (the message may
    be lost with the broker; the job is a no-op for a run already decided); a run
    sent ``VALIDATION_MAX_ATTEMPTS`` times is rejected. Returns the jobs sent."""
    lost = Submission.objects.filter(
        Q(enqueued_at__lt=before) | Q(enqueued_at__isnull=True),
        status=S.VALIDATING,
    )
    sent = 0
    for pk, attempts in lost.values_list("pk", "attempts"):
        if attempts + 1 >= settings.VALIDATION_MAX_ATTEMPTS:
            if reject(
                pk,
                category=Submission.Failure.INFRASTRUCTURE,
                message=(
                    f"This file could not be checked after {attempts + 1} attempts "
                    "(no worker finished the check). It was not counted against your "
                    "limits; submit it again later."
                ),
            ):
                log.warning("run %s rejected: validation never finished", pk)
            continue
        Submission.objects.filter(pk=pk, status=S.VALIDATING).update(
            enqueued_at=now, attempts=F("attempts") + 1
        )
        queue.enqueue_validation(pk)
        sent += 1
    return sent


# --- scoring -----------------------------------------------------------------------
def claim(pk: int, token: str) -> bool:
    """queued -> scoring; exactly one caller wins and its token is recorded."""
    now = timezone.now()
    return (
        _move(
            Submission.objects.filter(pk=pk),
            (S.QUEUED,),
            S.SCORING,
            started_at=now,
            heartbeat_at=now,
            worker=token[:200],
            attempts=F("attempts") + 1,
        )
        == 1
    )


def owned(pk: int, token: str) -> QuerySet[Submission]:
    """The row, while the worker holding ``token`` is scoring it."""
    return Submission.objects.filter(pk=pk, status=S.SCORING, worker=token[:200])


def versions_read(phase_id: int) -> dict[int, int]:
    """Each test set of the phase -> its gold version. A worker reads this before it
    reads any file; ``finish`` compares it with the versions at the end."""
    return dict(
        TestSet.objects.filter(phase_id=phase_id).values_list("pk", "gold_version")
    )


def finish(
    pk: int,
    token: str,
    *,
    phase_id: int,
    read: Mapping[int, int],
    store: Callable[[], dict[str, object]] | None = None,
    failure: tuple[str, str] | None = None,
) -> str:
    """End a scoring attempt: ``store()`` the results and move to ``scored`` (its
    return value: the row's other fields), or fail with ``failure`` (category,
    message) — unless the phase's test sets or their gold changed since ``read``
    (``versions_read``), in which case nothing is kept and the run is queued again.
    Returns "scored", "failed", "requeued" or "skipped" (no longer ours)."""
    with transaction.atomic():
        Phase.objects.select_for_update().filter(pk=phase_id).first()
        mine = owned(pk, token)
        if versions_read(phase_id) != dict(read):
            moved = _move(
                mine,
                (S.SCORING,),
                S.QUEUED,
                started_at=None,
                heartbeat_at=None,
                worker="",
                attempts=0,
                enqueued_at=timezone.now(),
            )
            if moved:
                log.info("run %s queued again: the gold changed while scoring", pk)
                transaction.on_commit(lambda: queue.enqueue_scoring(pk))
            return "requeued" if moved else "skipped"
        if failure is not None:
            category, message = failure
            if not _move(
                mine,
                (S.SCORING,),
                S.FAILED,
                failure_category=category,
                failure_message=message,
                finished_at=timezone.now(),
            ):
                return "skipped"
            _send_failed(pk)
            return "failed"
        if not mine.exists():
            return "skipped"
        fields = store() if store is not None else {}
        if not _move(
            mine,
            (S.SCORING,),
            S.SCORED,
            failure_category="",
            failure_message="",
            finished_at=timezone.now(),
            **fields,
        ):
            transaction.set_rollback(True)  # taken over meanwhile: keep nothing
            return "skipped"
    return "scored"


def _send_failed(pk: int) -> None:
    transaction.on_commit(
        lambda: signals.submission_failed.send(sender=Submission, submission_id=pk),
        robust=True,  # the failure is stored; a receiver's error must not drop others
    )


# --- the sweeper: runs lost with their worker ---------------------------------------
def lost_worker(sub: Submission, *, now: datetime) -> str:
    """A run in ``scoring`` whose worker stopped beating: queued again, or failed
    after its last attempt. Compare-and-set on what the sweeper read, so a
    heartbeat arriving meanwhile wins. Returns "requeued", "failed" or ""."""
    same = Submission.objects.filter(
        pk=sub.pk, worker=sub.worker, heartbeat_at=sub.heartbeat_at
    )
    if sub.attempts >= settings.SCORING_MAX_ATTEMPTS:
        if _move(
            same,
            (S.SCORING,),
            S.FAILED,
            failure_category=Submission.Failure.INFRASTRUCTURE,
            failure_message=(
                f"Scoring did not finish after {sub.attempts} attempts (the "
                "worker stopped responding each time, e.g. it ran out of memory)."
            ),
            finished_at=now,
        ):
            _send_failed(sub.pk)
            return "failed"
        return ""
    moved = _move(
        same,
        (S.SCORING,),
        S.QUEUED,
        started_at=None,
        finished_at=None,
        heartbeat_at=None,
        worker="",
        enqueued_at=now,
    )
    return "requeued" if moved else ""


# --- scored again ------------------------------------------------------------------
def rescore(*, submission_ids: Iterable[int]) -> int:
    """Queue scored and failed runs again (new gold, a new scorer version, an
    organiser's click); their jobs are sent after commit. Returns how many."""
    ids = sorted(set(submission_ids))
    count = 0
    for pk in ids:
        if _move(
            Submission.objects.filter(pk=pk),
            RESCORABLE,
            S.QUEUED,
            attempts=0,
            enqueued_at=timezone.now(),
            finished_at=None,
        ):
            count += 1
            transaction.on_commit(lambda pk=pk: queue.enqueue_scoring(pk))
    return count


def affected(phase_id: int) -> QuerySet[Submission]:
    """The runs a change of the phase's test data scores again: those scored, and
    those that failed for a reason new data may fix (any state: a run queued or
    being scored is caught by ``finish``)."""
    return Submission.objects.filter(phase_id=phase_id).filter(
        Q(status=S.SCORED) | Q(_RETRIABLE_FAILED, status=S.FAILED)
    )


def data_changed(*, phase_id: int, test_set_id: int | None = None) -> int:
    """A test set's private files changed: bump its gold version (``test_set_id``;
    None: only queue the runs again) and queue every ``affected`` run
    again, under the phase's lock (the one ``finish`` takes). Returns how many runs
    were queued. Call it inside the transaction that makes the change."""
    from evalhub.competitions.services.boards import boardcache

    with transaction.atomic():
        Phase.objects.select_for_update().filter(pk=phase_id).first()
        if test_set_id is not None:
            TestSet.objects.filter(pk=test_set_id).update(
                gold_version=F("gold_version") + 1
            )
        count = rescore(submission_ids=affected(phase_id).values_list("pk", flat=True))
    # A retraction: no board drawn on the old gold is served again, not even as
    # the fragment's stale fallback.
    boardcache.invalidate_phase(phase=phase_id, retract=True)
    return count
