"""Pausing Python's cyclic garbage collector while a scorer builds large
structures: each collection scans every container allocated so far, so parsing
100,000 lines into tuples and dataclasses would trigger it again and again,
although none of these objects makes a cycle (reference counting frees them)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


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
