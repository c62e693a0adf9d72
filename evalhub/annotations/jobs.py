"""Celery adapters for annotations (thin and idempotent)."""

from __future__ import annotations

from celery import shared_task

from evalhub.annotations.services import rescoring


@shared_task(
    name="evalhub.annotations.jobs.rescore_judged_runs",
    acks_late=True,
    soft_time_limit=300,
    time_limit=330,
)
def rescore_judged_runs(test_set_id: int) -> list[int]:
    return rescoring.rescore_test_set(test_set_id=test_set_id)
