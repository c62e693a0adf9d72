"""The sweeper (a beat job): finishes or retries runs stuck in ``scoring`` whose
worker was lost, and re-sends queued and validating runs whose message was lost with
the broker (a run sent ``VALIDATION_MAX_ATTEMPTS`` times is rejected), and the
jobs drawing a scored run's own figures lost likewise (``run_figures.py``).
Status changes are compare-and-set on the row (``services/runs/lifecycle.py``), so
running it twice, or alongside workers, is harmless."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone

from evalhub.competitions import queue
from evalhub.competitions.models import Submission
from evalhub.competitions.services.runs import lifecycle, run_figures

log = logging.getLogger(__name__)


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
        outcome = lifecycle.lost_worker(sub, now=now)
        if outcome == "failed":
            counts["failed"] += 1
            log.warning("submission %s failed: worker lost", sub.pk)
        elif outcome == "requeued":
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
    counts["reenqueued"] += _resend_validation(now=now, before=lost_before)
    counts["figures"] = run_figures.resend_lost(now=now)
    return counts


def _resend_validation(*, now: datetime, before: datetime) -> int:
    """Re-send the job of runs ``validating`` since before ``before`` (the message may
    be lost with the broker; the job is a no-op for a run already decided); a run
    sent ``VALIDATION_MAX_ATTEMPTS`` times is rejected. Returns the jobs sent."""
    lost = Submission.objects.filter(
        Q(enqueued_at__lt=before) | Q(enqueued_at__isnull=True),
        status=Submission.Status.VALIDATING,
    )
    sent = 0
    for pk, attempts in lost.values_list("pk", "attempts"):
        if attempts + 1 >= settings.VALIDATION_MAX_ATTEMPTS:
            if lifecycle.reject(
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
        Submission.objects.filter(pk=pk, status=Submission.Status.VALIDATING).update(
            enqueued_at=now, attempts=F("attempts") + 1
        )
        queue.enqueue_validation(pk)
        sent += 1
    return sent


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
