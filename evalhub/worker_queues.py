"""The Celery queues, and which of them each kind of worker consumes: the one place
that names them. The settings route jobs to them (``CELERY_TASK_DEFAULT_QUEUE``,
``CELERY_TASK_ROUTES``, ``WORKER_QUEUES``); ``manage.py up``, the benchmarks' stack
and the tests' workers read them here (a plain module: the benchmarks start workers
without loading Django); the Procfile and ``deploy/compose.yaml`` are checked
against them (``tests/deploy/test_process_layouts.py``), and
``tests/deploy/test_worker_queues.py`` fails on a queue list spelled anywhere else.

A run's own figures ride the scoring queue at a lower message priority
(``settings.RUN_FIGURES_PRIORITY``): no queue of their own, so no worker's list
changed for them."""

from __future__ import annotations

SCORING = "scoring"
DEFAULT = "default"

#: Kind of worker -> the queues it consumes: a scoring worker (scoring,
#: validation, a run's own figures), a default worker (refreshes, the sweepers,
#: exports), or one worker for everything (a small machine, the tests, benchmarks).
WORKERS: dict[str, tuple[str, ...]] = {
    "scoring": (SCORING,),
    "default": (DEFAULT,),
    "all": (SCORING, DEFAULT),
}


def argument(kind: str) -> str:
    """The ``-Q`` argument of a worker of this ``kind``."""
    return ",".join(WORKERS[kind])
