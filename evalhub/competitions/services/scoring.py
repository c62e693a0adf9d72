"""Scoring a submission on every test set of its phase (the sweeper that finishes
stuck rows is ``services/sweeper.py``).

Idempotent: a worker must first win the claim (queued -> scoring, recording which
worker holds the row), results are written with ``update_or_create``, and a job for a
row in a final state is a no-op.

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
from django.core.files.base import ContentFile
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from evalhub.competitions import finite, logs, queue, signals
from evalhub.competitions.models import (
    Artefact,
    Evaluation,
    Score,
    ScoreSnapshot,
    Submission,
    TestSet,
)
from evalhub.competitions.services import boardcache, refreshes, sweeper, taskdata
from evalhub.competitions.services.sweeper import sweep  # noqa: F401  (the job's API)
from tasks.base import FormatError, Plot, ScoreReport

log = logging.getLogger(__name__)

PUBLIC_SCORER_ERROR = (
    "The scorer failed on this run (internal error). The organisers can see the "
    "failure on their dashboard and rescore the run once it is fixed."
)


def score_submission(*, submission_id: int, worker: str = "") -> str:
    """Score one run. Returns what happened (for logs and tests). ``worker`` names
    the Celery worker (its hostname); the claim token adds the process and a nonce."""
    token = f"{worker or socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    if not _claim(submission_id, token):
        return "skipped"
    heartbeat = _Heartbeat(submission_id, token)
    heartbeat.start()
    try:
        return _score_claimed(submission_id, token)
    finally:
        heartbeat.stop()


def _claim(pk: int, token: str) -> bool:
    """queued -> scoring; exactly one caller wins and its token is recorded."""
    now = timezone.now()
    return (
        Submission.objects.filter(pk=pk, status=Submission.Status.QUEUED).update(
            status=Submission.Status.SCORING,
            started_at=now,
            heartbeat_at=now,
            worker=token[:200],
            attempts=F("attempts") + 1,
        )
        == 1
    )


def _mine(pk: int, token: str):  # noqa: ANN202 - a queryset
    return Submission.objects.filter(
        pk=pk, status=Submission.Status.SCORING, worker=token[:200]
    )


def _fail(pk: int, token: str, *, category: str, message: str) -> bool:
    done = (
        _mine(pk, token).update(
            status=Submission.Status.FAILED,
            failure_category=category,
            failure_message=message,
            finished_at=timezone.now(),
        )
        == 1
    )
    if done:
        sweeper.send_failed(pk)
    return done


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
                    if not _mine(self.pk, self.token).update(
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
    try:
        results = _score_all(submission)
    except FormatError as exc:
        _fail(
            submission_id,
            token,
            category=Submission.Failure.FORMAT,
            message="\n".join(str(p) for p in exc.problems),
        )
        return "failed"
    except SoftTimeLimitExceeded:
        _fail(
            submission_id,
            token,
            category=Submission.Failure.TIMEOUT,
            message=f"Scoring took longer than {settings.SCORING_SOFT_TIME_LIMIT} s and was stopped.",
        )
        return "failed"
    except taskdata.MissingFiles as exc:
        _fail(
            submission_id,
            token,
            category=Submission.Failure.INFRASTRUCTURE,
            message=str(exc),
        )
        return "failed"
    except MemoryError:
        _fail(
            submission_id,
            token,
            category=Submission.Failure.SCORER,
            message="Scoring ran out of memory on this run.",
        )
        return "failed"
    except Exception:  # noqa: BLE001 - any scorer bug must end in a final state
        logs.error_without_text(log, "scorer error on submission %s", submission_id)
        _fail(
            submission_id,
            token,
            category=Submission.Failure.SCORER,
            message=PUBLIC_SCORER_ERROR,
        )
        return "failed"

    warnings: list[str] = []
    with transaction.atomic():
        for test_set, report, plots in results:
            store_evaluation(
                submission=submission, test_set=test_set, report=report, plots=plots
            )
            warnings.extend(w for w in report.warnings if w not in warnings)
        done = (
            _mine(submission_id, token).update(
                status=Submission.Status.SCORED,
                scorer_version=submission.phase.task.type.version,
                warnings=warnings,
                failure_category="",
                failure_message="",
                finished_at=timezone.now(),
            )
            == 1
        )
        if not done:
            # Presumed dead and taken over (or finished) meanwhile: keep no results.
            transaction.set_rollback(True)
        if done:
            for test_set, _, _ in results:
                transaction.on_commit(_after_scored(test_set.pk))
            ids = [ts.pk for ts, _, _ in results]
            transaction.on_commit(
                lambda: signals.submission_scored.send(
                    sender=Submission, submission_id=submission_id, test_set_ids=ids
                )
            )
    return "scored" if done else "skipped"


def _after_scored(test_set_id: int):  # noqa: ANN202
    def run() -> None:
        boardcache.invalidate(test_set_id=test_set_id)
        refreshes.request(kind=refreshes.ANALYSES, test_set_id=test_set_id)

    return run


def _score_all(
    submission: Submission,
) -> list[tuple[TestSet, ScoreReport, tuple[Plot, ...]]]:
    with submission.file.open("rb") as handle:
        data = handle.read()
    test_sets = list(submission.phase.test_sets.all())
    contexts = [taskdata.load_inputs(ts) for ts in test_sets]
    if not contexts:
        return []
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
        plots = task_type.plots(report, settings)
        results.append((test_set, report, plots))
    return results


def store_evaluation(
    *,
    submission: Submission,
    test_set: TestSet,
    report: ScoreReport,
    plots: tuple[Plot, ...],
) -> Evaluation:
    """Write (or overwrite) one run's results on one test set: the report, a Score row
    per metric and the plot files. Idempotent."""
    version = submission.phase.task.type.version
    _snapshot_if_superseded(
        submission=submission, test_set=test_set, scorer_version=version
    )
    evaluation, _ = Evaluation.objects.update_or_create(
        submission=submission,
        test_set=test_set,
        defaults={
            "scorer_version": version,
            "gold_version": test_set.gold_version,
            "payload": dict(report.payload),
            "curves": [c.to_json() for c in report.curves],
            "warnings": list(report.warnings),
            "detail": dict(report.detail),
        },
    )
    for key, value in report.metrics.items():
        Score.objects.update_or_create(
            submission=submission,
            test_set=test_set,
            metric=key,
            defaults={
                "value": None if value is None else float(value),
                "scorer_version": version,
            },
        )
    keep = set()
    for plot in plots:
        keep.add(plot.key)
        artefact = Artefact.objects.filter(evaluation=evaluation, key=plot.key).first()
        if artefact is None:
            artefact = Artefact(evaluation=evaluation, key=plot.key)
        else:
            artefact.svg.delete(save=False)
            artefact.png.delete(save=False)
        artefact.title = plot.title
        artefact.svg.save(f"{plot.key}.svg", ContentFile(plot.svg), save=False)
        artefact.png.save(f"{plot.key}.png", ContentFile(plot.png), save=False)
        artefact.save()
    for stale in evaluation.artefacts.exclude(key__in=keep):
        stale.svg.delete(save=False)
        stale.png.delete(save=False)
        stale.delete()
    return evaluation


def _snapshot_if_superseded(
    *, submission: Submission, test_set: TestSet, scorer_version: str
) -> None:
    """Keep the scores about to be overwritten when they came from other gold or
    another scorer version (a plain retry of the same versions keeps nothing)."""
    previous = Evaluation.objects.filter(
        submission=submission, test_set=test_set
    ).first()
    if previous is None or (
        previous.scorer_version == scorer_version
        and previous.gold_version == test_set.gold_version
    ):
        return
    metrics = dict(
        Score.objects.filter(submission=submission, test_set=test_set).values_list(
            "metric", "value"
        )
    )
    ScoreSnapshot.objects.get_or_create(
        submission=submission,
        test_set=test_set,
        scorer_version=previous.scorer_version,
        gold_version=previous.gold_version,
        defaults={"metrics": metrics, "scored_at": previous.created_at},
    )


def rescore(*, submission_ids: list[int]) -> int:
    """Put final runs back in the queue (e.g. after gold or scorer changes)."""
    count = 0
    for pk in submission_ids:
        updated = Submission.objects.filter(
            pk=pk, status__in=[Submission.Status.SCORED, Submission.Status.FAILED]
        ).update(
            status=Submission.Status.QUEUED,
            attempts=0,
            enqueued_at=timezone.now(),
            finished_at=None,
        )
        if updated:
            count += 1
            transaction.on_commit(
                lambda pk=pk: queue.job(queue.SCORE_SUBMISSION).delay(pk)
            )
    return count
