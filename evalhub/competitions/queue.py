"""Celery jobs looked up by name, so that the services that enqueue them never import
the ``jobs`` modules (which import the services: no import circle). The names are
the jobs' explicit ``shared_task(name=...)``; every app's ``jobs`` module is
registered by the Celery app (``app.autodiscover_tasks``), imported on first use."""

from __future__ import annotations

import logging
import threading

import kombu.exceptions
import redis.exceptions

log = logging.getLogger(__name__)

#: Celery's autodiscovery returns at once, having imported nothing, while another
#: thread of the process is in it (``celery.loaders.base._RACE_PROTECTION``): the
#: first requests of a threaded web process then found no job and answered 500.
_discovering = threading.Lock()

SCORE_SUBMISSION = "evalhub.competitions.jobs.score_submission"
VALIDATE_SUBMISSION = "evalhub.competitions.jobs.validate_submission"
REFRESH_ANALYSES = "evalhub.competitions.jobs.refresh_analyses"
DRAW_RUN_FIGURES = "evalhub.competitions.jobs.draw_run_figures"


def job(name: str):  # noqa: ANN201 - a celery Task
    from celery import current_app
    from celery.exceptions import NotRegistered

    try:
        return current_app.tasks[name]
    except NotRegistered:
        # Outside a worker the autodiscovered ``jobs`` modules are imported on
        # demand (``autodiscover_tasks`` is lazy), by one thread at a time.
        with _discovering:
            current_app.loader.import_default_modules()
            return current_app.tasks[name]


def enqueue_scoring(submission_id: int) -> None:
    """Send the scoring job. The row is already stored: if the broker is down the
    participant still gets their run page, and the sweeper sends the job later."""
    _send(SCORE_SUBMISSION, submission_id)


def enqueue_validation(submission_id: int) -> None:
    """Send the validation job of a ``validating`` row (the sweeper re-sends it)."""
    _send(VALIDATE_SUBMISSION, submission_id)


def enqueue_run_figures(evaluation_id: int, key: str) -> None:
    """Send the job drawing a scored run's own figures (queue and priority: the
    settings' ``CELERY_TASK_ROUTES``). The score is stored: if the broker is down
    the figures stay pending and the sweeper sends the job later."""
    _send(DRAW_RUN_FIGURES, evaluation_id, key)


def _send(name: str, row_id: int, *args: object) -> None:
    try:
        job(name).delay(row_id, *args)
    except (kombu.exceptions.OperationalError, redis.exceptions.RedisError, OSError):
        log.warning(
            "broker unavailable; %s(%s) will be sent by the sweeper", name, row_id
        )
