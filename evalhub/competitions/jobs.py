"""Celery adapters: look a row up by primary key, call one service. Every job is
idempotent; running it twice is a no-op."""

from __future__ import annotations

import contextlib
import resource
from collections.abc import Iterator

from celery import shared_task
from django.conf import settings

from evalhub.competitions.services.boards import analyses, compare_figures, refreshes
from evalhub.competitions.services.data import datasets
from evalhub.competitions.services.runs import (
    run_figures,
    scoring,
    sweeper,
    validation,
)


@shared_task(
    bind=True,
    name="evalhub.competitions.jobs.score_submission",
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=settings.SCORING_SOFT_TIME_LIMIT,
    time_limit=settings.SCORING_TIME_LIMIT,
)
def score_submission(self, submission_id: int) -> str:  # noqa: ANN001
    with memory_limit(settings.SCORING_MEMORY_LIMIT_MB):
        return scoring.score_submission(
            submission_id=submission_id, worker=self.request.hostname or ""
        )


@shared_task(
    name="evalhub.competitions.jobs.draw_run_figures",
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=settings.RUN_FIGURES_SOFT_TIME_LIMIT,
    time_limit=settings.RUN_FIGURES_TIME_LIMIT,
)
def draw_run_figures(evaluation_id: int, key: str) -> str:
    """A scored run's own figures, after its score (queue and priority: the route
    in ``settings.CELERY_TASK_ROUTES``)."""
    with memory_limit(settings.SCORING_MEMORY_LIMIT_MB):
        return run_figures.draw(evaluation_id=evaluation_id, key=key)


@shared_task(
    name="evalhub.competitions.jobs.validate_submission",
    acks_late=True,
    soft_time_limit=settings.VALIDATION_CPU_SECONDS * 3 + 60,
    time_limit=settings.VALIDATION_CPU_SECONDS * 3 + 90,
)
def validate_submission(submission_id: int) -> str:
    """The full check of a large run file, in a child process under its own limits."""
    return validation.validate_submission(submission_id=submission_id)


@contextlib.contextmanager
def memory_limit(mebibytes: int) -> Iterator[None]:
    """Cap the process's address space while scoring, so a scorer that allocates too
    much gets a MemoryError (a readable failure) instead of the kernel's OOM killer
    taking the worker down. Restored afterwards; 0 means no limit."""
    if not mebibytes:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = mebibytes * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@shared_task(
    name="evalhub.competitions.jobs.refresh_analyses",
    acks_late=True,
    soft_time_limit=300,
    time_limit=330,
)
def refresh_analyses(test_set_id: int) -> list[str]:
    return analyses.refresh(test_set_id=test_set_id)


@shared_task(
    name=compare_figures.DRAW_JOB,
    acks_late=True,
    soft_time_limit=120,
    time_limit=150,
)
def draw_compare_figures(test_set_id: int, run_ids: list[int]) -> int:
    return compare_figures.draw(test_set_id=test_set_id, run_ids=run_ids)


@shared_task(
    name="evalhub.competitions.jobs.sweep_submissions",
    acks_late=True,
    soft_time_limit=120,
    time_limit=150,
)
def sweep_submissions() -> dict[str, int]:
    return sweeper.sweep()


@shared_task(
    name="evalhub.competitions.jobs.dispatch_refreshes",
    soft_time_limit=60,
    time_limit=90,
)
def dispatch_refreshes() -> int:
    """Beat's tick: send the statistics and analyses refreshes that are due."""
    return refreshes.dispatch()


@shared_task(
    name="evalhub.competitions.jobs.reveal_due_test_sets",
    acks_late=True,
    soft_time_limit=120,
    time_limit=150,
)
def reveal_due_test_sets() -> list[int]:
    """Beat's tick: reveal the private test sets due at their phase's end."""
    return datasets.reveal_due()
