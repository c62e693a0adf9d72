"""Celery adapters for the console: look up by primary key, call one service."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from evalhub.competitions.jobs import memory_limit
from evalhub.console.services import archive_exports


@shared_task(
    name="evalhub.console.jobs.write_archive_export",
    acks_late=True,
    soft_time_limit=settings.ARCHIVE_EXPORT_SOFT_TIME_LIMIT,
    time_limit=settings.ARCHIVE_EXPORT_TIME_LIMIT,
)
def write_archive_export(export_id: int) -> str:
    with memory_limit(settings.ARCHIVE_EXPORT_MEMORY_LIMIT_MB):
        return archive_exports.write(export_id=export_id)


@shared_task(
    name="evalhub.console.jobs.sweep_archive_exports",
    acks_late=True,
    soft_time_limit=120,
    time_limit=150,
)
def sweep_archive_exports() -> dict[str, int]:
    return archive_exports.sweep()
