"""The test process renders each distinct figure once.

Matplotlib takes most of the time of the scored-run fixtures that the leak,
permission-matrix and export modules build for every test: the same demo run on the
same test sets gives the same curves, rendered again and again. The rendering is
deterministic (``tasks/common/plotting.py``: fixed SVG ids, no dates), so a figure
is rendered on the first request for its exact inputs (the pickled curves, labels
and options) and the same bytes are returned after that. Different inputs (another
run, a team name with LaTeX specials) are rendered anew; worker processes started by
the tests render everything themselves."""

from __future__ import annotations

import functools
import pickle
from collections.abc import Callable
from typing import Any

import pytest

MEMOISED = ("curve_plot", "overlay_plots")


def memoise(fn: Callable[..., Any]) -> Callable[..., Any]:
    done: dict[bytes, Any] = {}

    @functools.wraps(fn)
    def once(*args: Any, **kwargs: Any) -> Any:  # noqa: ANN401
        key = pickle.dumps((args, sorted(kwargs.items())))
        if key not in done:
            done[key] = fn(*args, **kwargs)
        return done[key]

    return once


def install(monkeypatch: pytest.MonkeyPatch) -> None:
    from tasks.common import plotting

    for name in MEMOISED:
        monkeypatch.setattr(plotting, name, memoise(getattr(plotting, name)))
