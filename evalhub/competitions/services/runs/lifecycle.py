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

- **A score is stored only on current data**: on the current version of every file
  the scorer reads, inputs and gold, of every test set it can score the run on
  (``stale.py`` defines it). The worker notes the data versions before it reads a
  file; ``finish`` locks the phase row and compares: if a scorable test set was
  added or removed, or any of its files changed meanwhile, nothing is stored and
  the run goes back to the queue (also a run that failed on the changing files).
  Every change of a file (``data_changed``, from ``receivers.py``, whichever path
  made it) takes the same lock, bumps the test set's version and queues again
  exactly the runs scored or failed on the old data (``stale.affected_by``); a
  test set still being set up disturbs no run. A test set that can no longer
  score runs (its gold or an input deleted) loses its evaluations at once, and a
  run's rescore removes its evaluations on test sets it was not scored on.
- **Scores are written here only**: ``finish`` and ``rejudged`` (a feature app's
  rescore) call ``evaluations.py``, under the phase's lock, after the check; a
  run's own figures are drawn later by their job through ``*_figures`` below.
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
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Max, QuerySet
from django.dispatch import Signal
from django.utils import timezone

from evalhub.competitions import queue, signals
from evalhub.competitions.models import (
    Evaluation,
    Phase,
    Submission,
    Team,
    TestSet,
    TestSetFile,
)
from evalhub.competitions.services.data import taskdata
from evalhub.competitions.services.runs import evaluations, stale
from tasks.base import Plot, ScoreReport

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


class TransitionRefused(ValueError):
    """A status change the table does not allow (a bug in the caller)."""


def _check(sources: Iterable[str | None], target: str) -> None:
    for source in sources:
        if target not in TRANSITIONS[source]:
            raise TransitionRefused(f"a run cannot go from {source} to {target}")


def _move(
    rows: QuerySet[Submission], sources: tuple[str, ...], target: str, **fields: object
) -> int:
    """Compare-and-set: ``rows`` still in a state of ``sources`` move to ``target``."""
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
    """validating -> rejected (not counted against limits); the team is told."""
    moved = _move(
        Submission.objects.filter(pk=pk),
        (S.VALIDATING,),
        S.REJECTED,
        failure_category=category,
        failure_message=message,
        finished_at=timezone.now(),
    )
    if moved:
        _send(signals.submission_rejected, pk)
    return bool(moved)


# --- scoring -----------------------------------------------------------------------
def claim(pk: int, token: str) -> bool:
    """queued -> scoring; exactly one caller wins and its token is recorded."""
    now = timezone.now()
    moved = _move(
        Submission.objects.filter(pk=pk),
        (S.QUEUED,),
        S.SCORING,
        started_at=now,
        heartbeat_at=now,
        worker=token[:200],
        attempts=F("attempts") + 1,
    )
    return moved == 1


def owned(pk: int, token: str) -> QuerySet[Submission]:
    """The row, while the worker holding ``token`` is scoring it."""
    return Submission.objects.filter(pk=pk, status=S.SCORING, worker=token[:200])


Plots = tuple[Plot, ...]
#: What a scoring job stores (figures None: drawn after it, ``run_figures.py``).
Scored = Sequence[tuple[TestSet, ScoreReport, Plots | None]]
claim_figures, store_figures = evaluations.claim_figures, evaluations.store_figures
lost_figures = evaluations.lost_figures


def finish(
    pk: int,
    token: str,
    *,
    phase_id: int,
    read: Mapping[int, int],
    scored: Scored = (),
    fields: Mapping[str, object] | None = None,
    on_scored: Callable[[], None] | None = None,
    failure: tuple[str, str] | None = None,
) -> str:
    """End a scoring attempt: store the ``scored`` results (``evaluations``), remove
    the run's evaluations on the phase's other test sets (they can no longer score
    it), call ``on_scored`` (it registers what follows the commit) and move to
    ``scored`` with ``fields``; or fail with ``failure`` (category, message) —
    unless the data the scores rest on changed since ``read`` (``stale.data_versions``),
    in which case nothing is kept and the run is queued again.
    Returns "scored", "failed", "requeued" or "skipped" (no longer ours)."""
    with transaction.atomic():
        Phase.objects.select_for_update().filter(pk=phase_id).first()
        mine = owned(pk, token)
        if stale.data_versions(phase_id) != dict(read):
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
                log.info("run %s queued again: its data changed while scoring", pk)
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
            _send(signals.submission_failed, pk)
            return "failed"
        run = mine.select_related("phase__task").first()
        if run is None:
            return "skipped"
        for test_set, report, plots in scored:
            evaluations.store_evaluation(
                submission=run, test_set=test_set, report=report, plots=plots
            )
        evaluations.withdraw(
            Evaluation.objects.filter(submission_id=pk).exclude(
                test_set_id__in=[ts.pk for ts, _, _ in scored]
            )
        )
        if on_scored is not None:
            on_scored()
        if not _move(
            mine,
            (S.SCORING,),
            S.SCORED,
            failure_category="",
            failure_message="",
            finished_at=timezone.now(),
            **(fields or {}),
        ):
            transaction.set_rollback(True)  # taken over meanwhile: keep nothing
            return "skipped"
    return "scored"


def _send(signal: Signal, pk: int) -> None:
    transaction.on_commit(
        lambda: signal.send(sender=Submission, submission_id=pk),
        robust=True,  # the state is stored; a receiver's error must not drop others
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
            _send(signals.submission_failed, sub.pk)
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


def data_changed(*, test_set_id: int, role: str, change: str, private: bool) -> int:
    """A file of a test set was ``change``d ("added", "replaced", "deleted"),
    whichever path did it (``receivers.py``). Unless the test set is scorable
    neither before nor after (being set up), under the phase's lock (the one
    ``finish`` takes) its data version is bumped, its evaluations go if it can no
    longer score runs, and the runs ``affected_by`` the change are queued again.
    Returns how many. Call it inside the transaction that makes the change."""
    from evalhub.competitions.services.boards import boardcache

    test_set = TestSet.objects.select_related("phase__task").get(pk=test_set_id)
    roles = TestSetFile.objects.filter(test_set_id=test_set_id)
    after = set(roles.values_list("role", flat=True))
    before = {"added": after - {role}, "deleted": after | {role}}.get(change, after)
    if not (taskdata.ready(test_set, before) or taskdata.ready(test_set, after)):
        return 0  # being set up: no score rests on it, no worker compares it
    with transaction.atomic():
        Phase.objects.select_for_update().filter(pk=test_set.phase_id).first()
        TestSet.objects.filter(pk=test_set_id).update(
            gold_version=F("gold_version") + 1
        )
        runs = stale.affected_by(
            test_set, before=before, after=after, inputs=not private
        )
        count = rescore(submission_ids=runs.values_list("pk", flat=True))
        if not taskdata.ready(test_set, after):
            evaluations.withdraw(Evaluation.objects.filter(test_set_id=test_set_id))
    # A retraction: no board drawn on the old data is served again, not even as the
    # fragment's stale fallback.
    boardcache.invalidate_phase(phase=test_set.phase_id, retract=True)
    return count


def rejudged(
    *,
    test_set_id: int,
    score: Callable[[TestSet], Iterable[tuple[Submission, ScoreReport, Plots]]],
) -> list[int]:
    """Scores on one test set computed again by a feature app from what it keeps
    beside the data (the annotators' judgements): ``score(test_set)`` yields each
    run's results, stored under the phase's lock (the one ``finish`` and
    ``data_changed`` take) if the run is still scored on the test set's current
    data (a run queued again is scored by its job). Returns the runs stored."""
    phase = TestSet.objects.filter(pk=test_set_id).values("phase")
    stored: list[int] = []
    with transaction.atomic():
        Phase.objects.select_for_update().filter(pk__in=phase).first()
        test_set = (
            TestSet.objects.select_related("phase__task").filter(pk=test_set_id).first()
        )
        if test_set is None:
            return stored
        for run, report, plots in score(test_set):
            if Evaluation.objects.filter(
                submission_id=run.pk,
                submission__status=S.SCORED,
                test_set=test_set,
                gold_version=test_set.gold_version,
            ).exists():
                evaluations.store_evaluation(
                    submission=run, test_set=test_set, report=report, plots=plots
                )
                stored.append(run.pk)
    return stored
