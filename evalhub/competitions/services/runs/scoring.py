"""Scoring a submission on every test set of its phase (the sweeper that finishes
stuck rows is ``services/runs/sweeper.py``).

Every status change is made by ``services/runs/lifecycle.py`` (the run's one owner):
a worker must first win the claim (queued -> scoring, recording which worker holds
the row), results are written by ``lifecycle.finish`` (``runs/evaluations.py``),
which keeps them only if every file the worker read is still current, and a job
for a row in any other state is a no-op.

Worker loss: while a run is scored a heartbeat thread refreshes
``Submission.heartbeat_at``. The sweeper puts rows whose heartbeat is older than
``SCORING_HEARTBEAT_STALE_AFTER`` back in the queue (a SIGKILLed or OOM-killed worker
stops beating), so another worker scores them within about that delay plus
``SWEEP_INTERVAL``. Every later transition of the row is guarded by the claiming
worker's token: a worker presumed dead that wakes up cannot overwrite the new owner.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from evalhub.competitions import finite, logs, signals
from evalhub.competitions.models import (
    Submission,
    TestSet,
)
from evalhub.competitions.services.boards import boardcache, refreshes
from evalhub.competitions.services.data import taskdata
from evalhub.competitions.services.runs import lifecycle, stale
from tasks.base import FormatError, ScoreReport

log = logging.getLogger(__name__)

PUBLIC_SCORER_ERROR = (
    "The scorer failed on this run (internal error). The organisers can see the "
    "failure on their dashboard and rescore the run once it is fixed."
)


def score_submission(*, submission_id: int, worker: str = "") -> str:
    """Score one run. Returns what happened ("scored", "failed", "requeued" when the
    gold changed meanwhile, "skipped"; for logs and tests). ``worker`` names the
    Celery worker (its hostname); the claim token adds the process and a nonce."""
    token = f"{worker or socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    if not lifecycle.claim(submission_id, token):
        return "skipped"
    heartbeat = _Heartbeat(submission_id, token)
    heartbeat.start()
    try:
        return _score_claimed(submission_id, token)
    finally:
        heartbeat.stop()


class _Heartbeat:
    """Refresh ``heartbeat_at`` every ``SCORING_HEARTBEAT_INTERVAL`` seconds from a
    daemon thread (its own database connection) while the row is ours."""

    def __init__(self, pk: int, token: str):
        self.pk, self.token = pk, token
        self.interval = settings.SCORING_HEARTBEAT_INTERVAL
        self.stopped = threading.Event()
        self.thread = threading.Thread(
            target=self._run, name=f"heartbeat-{pk}", daemon=True
        )

    def start(self) -> None:
        try:
            self.thread.start()
        except RuntimeError:  # no memory for a thread: the sweeper will notice
            log.warning("no heartbeat thread for submission %s", self.pk)

    def stop(self) -> None:
        self.stopped.set()
        if self.thread.is_alive():
            self.thread.join(timeout=2)

    def _run(self) -> None:
        try:
            while not self.stopped.wait(self.interval):
                try:
                    if not lifecycle.owned(self.pk, self.token).update(
                        heartbeat_at=timezone.now()
                    ):
                        return  # finished, or taken over after we were presumed dead
                except Exception:  # noqa: BLE001 - the database may be restarting
                    log.warning("heartbeat of submission %s failed", self.pk)
                    connection.close()
        finally:
            connection.close()


def _score_claimed(submission_id: int, token: str) -> str:
    submission = Submission.objects.select_related("phase__task").get(pk=submission_id)
    # The data versions (every file the scorer reads) are read with the test sets,
    # before any file: ``finish`` keeps nothing if they changed by the end.
    test_sets = taskdata.phase_test_sets(submission.phase)
    read = stale.versions(test_sets)

    def end(failure: tuple[str, str]) -> str:
        return lifecycle.finish(
            submission_id,
            token,
            phase_id=submission.phase_id,
            read=read,
            failure=failure,
        )

    try:
        results = _score_all(submission, taskdata.scorable(test_sets))
    except FormatError as exc:
        return end((Submission.Failure.FORMAT, "\n".join(str(p) for p in exc.problems)))
    except SoftTimeLimitExceeded:
        return end(
            (
                Submission.Failure.TIMEOUT,
                f"Scoring took longer than {settings.SCORING_SOFT_TIME_LIMIT} s "
                "and was stopped.",
            )
        )
    except taskdata.MissingFiles as exc:
        return end((Submission.Failure.INFRASTRUCTURE, str(exc)))
    except MemoryError:
        return end(
            (Submission.Failure.SCORER, "Scoring ran out of memory on this run.")
        )
    except Exception:  # noqa: BLE001 - any scorer bug must end in a final state
        logs.error_without_text(log, "scorer error on submission %s", submission_id)
        return end((Submission.Failure.SCORER, PUBLIC_SCORER_ERROR))

    warnings: list[str] = []
    for _, report, _ in results:
        warnings.extend(w for w in report.warnings if w not in warnings)
    ids = [ts.pk for ts, _, _ in results]

    def on_scored() -> None:
        # robust: the run is stored; one hook or receiver failing (logged) never
        # keeps the others (the team's notification among them) from running.
        for pk in ids:
            transaction.on_commit(_after_scored(pk), robust=True)
        transaction.on_commit(lambda: _tell_scored(submission_id, ids), robust=True)

    return lifecycle.finish(
        submission_id,
        token,
        phase_id=submission.phase_id,
        read=read,
        scored=results,
        fields={
            "scorer_version": submission.phase.task.type.version,
            "warnings": warnings,
        },
        on_scored=on_scored,
    )


def _after_scored(test_set_id: int):  # noqa: ANN202
    """The boards follow and the analyses are asked for; neither needs Redis (the
    board version and the refreshes are rows), so an outage loses nothing."""

    def run() -> None:
        boardcache.invalidate(test_set_id=test_set_id)
        refreshes.request(kind=refreshes.ANALYSES, test_set_id=test_set_id)

    run.__qualname__ = f"scoring.after_scored(test_set_id={test_set_id})"
    return run


def _tell_scored(submission_id: int, test_set_ids: list[int]) -> None:
    """``submission_scored`` to every receiver, each on its own: one that fails
    (e.g. a job it sends while the broker is down) is logged, and the others
    (the team's notification) still run."""
    for receiver, result in signals.submission_scored.send_robust(
        sender=Submission, submission_id=submission_id, test_set_ids=test_set_ids
    ):
        if isinstance(result, Exception):
            log.error(
                "%s failed after run %s was scored",
                getattr(receiver, "__qualname__", receiver),
                submission_id,
                exc_info=result,
            )


def _score_all(
    submission: Submission, test_sets: list[TestSet]
) -> list[tuple[TestSet, ScoreReport, None]]:
    with submission.file.open("rb") as handle:
        data = handle.read()
    if not test_sets:
        raise taskdata.MissingFiles(
            "no test set of this phase has its input and gold files yet"
        )
    contexts = [taskdata.load_inputs(ts) for ts in test_sets]
    task_type, settings = contexts[0].task_type, contexts[0].settings
    runs = task_type.parse_phase_run(
        data, submission.original_name, [c.inputs for c in contexts], settings
    )
    results = []
    for test_set, ctx, run in zip(test_sets, contexts, runs, strict=True):
        gold = taskdata.load_gold(test_set)
        report = task_type.score(run, gold, ctx.inputs, settings)
        # Refused here, the run fails as a scorer error (nothing half-stored).
        finite.check_json(
            [dict(report.metrics), report.payload, report.detail]
            + [c.to_json() for c in report.curves],
            f"run {submission.pk} on test set {test_set.pk}",
        )
        # The figures are drawn after the score is stored, by a job of their own
        # (``run_figures.py``), from what the evaluation keeps.
        results.append((test_set, report, None))
    return results
