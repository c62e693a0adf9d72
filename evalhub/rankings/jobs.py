"""Celery adapters for rankings: look up by primary key, call one service."""

from __future__ import annotations

from celery import shared_task

from evalhub.rankings.services import statistics


@shared_task(
    name="evalhub.rankings.jobs.refresh_statistics",
    acks_late=True,
    soft_time_limit=300,
    time_limit=330,
)
def refresh_statistics(test_set_id: int) -> str:
    return statistics.refresh(test_set_id=test_set_id)
