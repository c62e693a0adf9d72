"""Celery adapters: look a row up by primary key, call one service. Every job is
idempotent; running it twice is a no-op."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from evalhub.competitions.services import analyses, scoring


@shared_task(
    name="evalhub.competitions.jobs.score_submission",
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=settings.SCORING_SOFT_TIME_LIMIT,
    time_limit=settings.SCORING_TIME_LIMIT,
)
def score_submission(submission_id: int) -> str:
    return scoring.score_submission(submission_id=submission_id)


@shared_task(
    name="evalhub.competitions.jobs.refresh_analyses",
    acks_late=True,
    soft_time_limit=300,
    time_limit=330,
)
def refresh_analyses(test_set_id: int) -> list[str]:
    return analyses.refresh(test_set_id=test_set_id)


@shared_task(
    name="evalhub.competitions.jobs.sweep_submissions",
    acks_late=True,
    soft_time_limit=120,
    time_limit=150,
)
def sweep_submissions() -> dict[str, int]:
    return scoring.sweep()
