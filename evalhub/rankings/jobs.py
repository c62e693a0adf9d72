"""Celery adapters for rankings: look up by primary key, call one service."""

from __future__ import annotations

from celery import shared_task

from evalhub.rankings.services import package, statistics


@shared_task(
    name="evalhub.rankings.jobs.refresh_statistics",
    acks_late=True,
    soft_time_limit=300,
    time_limit=330,
)
def refresh_statistics(test_set_id: int) -> str:
    return statistics.refresh(test_set_id=test_set_id)


@shared_task(
    name="evalhub.rankings.jobs.prepare_package",
    acks_late=True,
    soft_time_limit=300,
    time_limit=330,
)
def prepare_package(phase_id: int) -> int:
    return package.prepare(phase_id=phase_id)
