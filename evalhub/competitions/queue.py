"""Celery jobs looked up by name, so that the services that enqueue them never import
the ``jobs`` modules (which import the services: no import circle). The names are
the jobs' explicit ``shared_task(name=...)``; the Celery app registers every app's
``jobs`` module on first use (``app.autodiscover_tasks``)."""

from __future__ import annotations

SCORE_SUBMISSION = "evalhub.competitions.jobs.score_submission"
REFRESH_ANALYSES = "evalhub.competitions.jobs.refresh_analyses"


def job(name: str):  # noqa: ANN201 - a celery Task
    from celery import current_app

    return current_app.tasks[name]
