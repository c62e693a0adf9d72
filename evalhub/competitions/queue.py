"""Celery jobs looked up by name, so that the services that enqueue them never import
the ``jobs`` modules (which import the services: no import circle). The names are
the jobs' explicit ``shared_task(name=...)``; every app's ``jobs`` module is
registered by the Celery app (``app.autodiscover_tasks``), imported on first use."""

from __future__ import annotations

SCORE_SUBMISSION = "evalhub.competitions.jobs.score_submission"
REFRESH_ANALYSES = "evalhub.competitions.jobs.refresh_analyses"


def job(name: str):  # noqa: ANN201 - a celery Task
    from celery import current_app
    from celery.exceptions import NotRegistered

    try:
        return current_app.tasks[name]
    except NotRegistered:
        # Outside a worker the autodiscovered ``jobs`` modules are imported on
        # demand (``autodiscover_tasks`` is lazy).
        current_app.loader.import_default_modules()
        return current_app.tasks[name]
