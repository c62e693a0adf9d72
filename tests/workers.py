"""The one way the tests start a real Celery worker process: the command line
(``tests/conftest.py``'s ``worker`` fixture, the reliability harness and the database
restart test all build it here), and the queues the settings route jobs to."""

from __future__ import annotations

import sys
from pathlib import Path


def all_queues() -> str:
    """Every queue the settings route a job to, comma-separated."""
    from django.conf import settings

    queues = {settings.CELERY_TASK_DEFAULT_QUEUE}
    queues.update(route["queue"] for route in settings.CELERY_TASK_ROUTES.values())
    return ",".join(sorted(queues))


def command(
    name: str,
    queues: str,
    *,
    loglevel: str = "WARNING",
    main: str = "celery",
    beat: Path | None = None,
) -> list[str]:
    """One worker process, one job at a time, no start-up chatter with other
    workers; ``main`` is the module run with ``-m`` (the reliability tests use one
    that registers their probe task type first). With ``beat`` (its schedule
    file), the worker runs beat too: the sweeper and the refreshes that are due
    (``services/boards/refreshes.py``) are sent by beat, as under ``manage.py up``."""
    embedded = ["-B", "--schedule", str(beat)] if beat is not None else []
    return [
        sys.executable, "-m", main, "-A", "evalhub", "worker", "-Q", queues,
        "-c", "1", "--without-mingle", "--without-gossip", "--loglevel", loglevel,
        "-n", name, *embedded,
    ]  # fmt: skip
