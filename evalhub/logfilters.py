"""Filters of the project's log handlers (settings.LOGGING)."""

from __future__ import annotations

import logging

#: Beat's tick job, sent every ``EVALHUB_REFRESH_TICK`` seconds (default 1): its
#: name as Celery's worker and beat write it.
TICKS = ("dispatch_refreshes", "dispatch-refreshes")


class QuietTicks(logging.Filter):
    """Drop the INFO lines of beat's every-second tick (sent, received, succeeded):
    three lines a second would bury everything else in ``manage.py up``'s log.
    Its warnings and errors are kept, and so is every other job's line."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.WARNING:
            return True
        message = record.getMessage()
        return not any(tick in message for tick in TICKS)
