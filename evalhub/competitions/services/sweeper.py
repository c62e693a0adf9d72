"""The sweeper (a beat job): finishes or retries runs stuck in ``scoring`` whose
worker was lost, and re-sends queued runs whose message was lost with the broker.
Claims are compare-and-set on the row, so running it twice, or alongside workers,
is harmless."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from evalhub.competitions import queue, signals
from evalhub.competitions.models import Submission
from evalhub.competitions.services import validation

log = logging.getLogger(__name__)


def send_failed(pk: int) -> None:
    transaction.on_commit(
        lambda: signals.submission_failed.send(sender=Submission, submission_id=pk)
    )


def sweep(*, now=None) -> dict[str, int]:  # noqa: ANN001
    """Finish or retry stuck rows. Rows in ``scoring`` whose heartbeat stopped (or,
    as a backstop, that started before the hard time limit) were lost with their
    worker: re-queue them, or fail them after the last attempt. Rows ``queued`` whose
    message may have been lost with the broker are enqueued again; the atomic claim
    makes duplicates harmless."""
    jobs = queue.job(queue.SCORE_SUBMISSION)
    now = now or timezone.now()
    counts = {"requeued": 0, "failed": 0, "reenqueued": 0}
    stale_before = now - timedelta(seconds=settings.SCORING_HEARTBEAT_STALE_AFTER)
    stuck_before = now - timedelta(seconds=settings.SCORING_TIME_LIMIT + 30)
    lost_workers = Submission.objects.filter(
        Q(heartbeat_at__lt=stale_before)
        | Q(heartbeat_at__isnull=True, started_at__lt=stale_before)
        | Q(started_at__lt=stuck_before),
        status=Submission.Status.SCORING,
    )
    for sub in lost_workers:
        # Compare-and-set on what we read: a heartbeat that arrives meanwhile wins.
        same = Submission.objects.filter(
            pk=sub.pk,
            status=Submission.Status.SCORING,
            worker=sub.worker,
            heartbeat_at=sub.heartbeat_at,
        )
        if sub.attempts >= settings.SCORING_MAX_ATTEMPTS:
            if same.update(
                status=Submission.Status.FAILED,
                failure_category=Submission.Failure.INFRASTRUCTURE,
                failure_message=(
                    f"Scoring did not finish after {sub.attempts} attempts (the "
                    "worker stopped responding each time, e.g. it ran out of memory)."
                ),
                finished_at=now,
            ):
                counts["failed"] += 1
                log.warning("submission %s failed: worker lost", sub.pk)
                send_failed(sub.pk)
        elif same.update(
            status=Submission.Status.QUEUED,
            started_at=None,
            finished_at=None,
            heartbeat_at=None,
            worker="",
            enqueued_at=now,
        ):
            counts["requeued"] += 1
            log.warning("submission %s requeued: worker %s lost", sub.pk, sub.worker)
            _enqueue(jobs, sub.pk)
    lost_before = now - timedelta(seconds=settings.QUEUED_REENQUEUE_AFTER)
    lost = Submission.objects.filter(
        Q(enqueued_at__lt=lost_before) | Q(enqueued_at__isnull=True),
        status=Submission.Status.QUEUED,
    )
    for pk in lost.values_list("pk", flat=True):
        Submission.objects.filter(pk=pk).update(enqueued_at=now)
        _enqueue(jobs, pk)
        counts["reenqueued"] += 1
    counts["reenqueued"] += validation.resend_lost(now=now, before=lost_before)
    return counts


def _enqueue(jobs, pk: int) -> None:  # noqa: ANN001 - the scoring job
    """Send a scoring job; with the broker down the row stays queued and the next
    sweep (its ``enqueued_at`` is old again by then) tries once more."""
    try:
        jobs.delay(pk)
    except Exception:  # noqa: BLE001 - kombu raises several types when Redis is down
        log.warning("could not enqueue submission %s; the sweeper will retry", pk)
        Submission.objects.filter(pk=pk, status=Submission.Status.QUEUED).update(
            enqueued_at=None
        )
