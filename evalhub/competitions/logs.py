"""Logging an exception raised by code that reads gold (scorers, statistics, plots,
analyses): its type and frames only, never its text, which may quote gold items."""

from __future__ import annotations

import logging
import sys
import traceback

from celery.exceptions import SoftTimeLimitExceeded

#: Not a failure of one run: the whole job must stop (and is failed by its caller).
FATAL = (SoftTimeLimitExceeded, MemoryError)


def error_without_text(logger: logging.Logger, message: str, *args: object) -> None:
    """``logger.error(message % args)`` followed by the current exception's type
    and frames."""
    exc = sys.exc_info()[1]
    frames = "".join(traceback.format_tb(exc.__traceback__)) if exc else ""
    logger.error(message + ": %s\n%s", *args, type(exc).__name__, frames)
