"""A concurrent request in a test: a body run in a thread on its own database
connection, as another web or worker process would run it."""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.db import connection

#: Seconds a test waits for another thread: a deadline, not a pause.
WAIT = 60


def in_thread(
    body: Callable[[], object],
) -> tuple[threading.Thread, list[BaseException]]:
    """Start ``body`` on its own database connection; returns the thread and the
    exceptions it raised (for the test to report)."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            body()
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, errors
