"""The Celery queues, and which of them each kind of worker consumes: the one place
that names them and routes the jobs to them (the settings' ``CELERY_TASK_DEFAULT_QUEUE``,
``CELERY_TASK_ROUTES``, ``WORKER_QUEUES`` read it); ``manage.py up``, the benchmarks' stack
and the tests' workers read them here (a plain module: the benchmarks start workers
without loading Django); the Procfile and ``deploy/compose.yaml`` are checked
against them (``tests/deploy/test_process_layouts.py``), and
``tests/deploy/test_worker_queues.py`` fails on a queue list spelled anywhere else.

A run's own figures ride the scoring queue at the lowest message priority
(``settings.RUN_FIGURES_PRIORITY``): no queue of their own, so no worker's list
changed for them. On Redis, kombu keeps each queue as one list per step of
``priority_steps`` and a worker's BRPOP names every queue's step 0 before any
queue's step 9 (0 is the highest): a scoring worker takes every waiting scoring job
first, and a worker that also consumes ``default`` takes its refreshes first too
(figures never starve them). Chosen over a queue of their own with
``queue_order_strategy: priority``: that option applies to every queue of the
connection, so it would also serve ``scoring`` strictly before ``default`` on a
worker consuming both (refreshes starved under load), and every worker's ``-Q``
would have to name the new queue."""

from __future__ import annotations

SCORING = "scoring"
DEFAULT = "default"

#: kombu's Redis priority steps (its default, stated) and the lowest of them.
PRIORITY_STEPS = [0, 3, 6, 9]
LOWEST = PRIORITY_STEPS[-1]

#: The jobs routed to another queue than ``DEFAULT`` (``CELERY_TASK_ROUTES``).
ROUTES: dict[str, dict[str, object]] = {
    "evalhub.competitions.jobs.score_submission": {"queue": SCORING},
    "evalhub.competitions.jobs.validate_submission": {"queue": SCORING},
    "evalhub.competitions.jobs.draw_run_figures": {
        "queue": SCORING,
        "priority": LOWEST,
    },
}

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
