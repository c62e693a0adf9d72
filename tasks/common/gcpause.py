"""Pausing Python's cyclic garbage collector while a scorer builds large
structures: each collection scans every container allocated so far, so parsing
100,000 lines into tuples and dataclasses would trigger it again and again,
although none of these objects makes a cycle (reference counting frees them).
The command line also pauses it while it imports a task type, and spares the
interpreter its final scan (:func:`exit_settled`)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector inside the block (restored after it,
    also on errors, and left off if it was off)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def exit_settled(code: int) -> NoReturn:
    """End a command line run with status ``code``: every object still alive goes
    to the collector's permanent generation (``gc.freeze``) first, so the
    interpreter's final collection does not scan them all again before the process
    ends (5 of the 115 ms of ``evalhub score sentence_alignment`` at MAC-Test size).
    Nothing is lost: the command's files are written and closed
    (``Path.write_bytes``) and its output flushed before this is called."""
    gc.freeze()
    raise SystemExit(code)
