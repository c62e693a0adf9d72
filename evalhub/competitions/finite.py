"""Every number stored is finite: the one guard of the result columns.

NaN and infinity have no JSON spelling (PostgreSQL refuses ``NaN`` in a ``jsonb``
column, browsers' ``JSON.parse`` refuses it too) and no meaning on a leaderboard. The
result columns (scores, reports, statistics, analyses) refuse them where they are
written: the JSON columns encode with :class:`FiniteJSONEncoder`, ``Score.value`` is
checked by :func:`check_number` on save and by a database constraint. A refusal raises
:class:`NonFiniteNumber`, which names where the number was; the caller fails that one
run or that one artefact, never the others (see ``services/runs/scoring.py``,
``services/boards/analyses.py`` and the rankings' statistics).

An undefined metric (e.g. a share over zero judged items) is ``None``: stored as
SQL/JSON ``null`` and shown as "no value".
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator


class NonFiniteNumber(ValueError):
    """A NaN or an infinity was about to be stored."""


def check_number(value: float | None, where: str) -> float | None:
    if value is not None and not math.isfinite(value):
        raise NonFiniteNumber(f"{where}: {value!r} is not a finite number")
    return value


def non_finite_paths(value: object, path: str = "$") -> Iterator[str]:
    """Where in a JSON-like value the non-finite floats are (``$.a[0].b``)."""
    if isinstance(value, float) and not math.isfinite(value):
        yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from non_finite_paths(item, f"{path}.{key}")
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from non_finite_paths(item, f"{path}[{i}]")


def check_json(value: object, where: str) -> None:
    """Raise :class:`NonFiniteNumber` naming the paths of the non-finite numbers
    (the C encoder checks; the paths are looked for only when it refuses)."""
    try:
        json.dumps(value, allow_nan=False)
        return
    except (ValueError, TypeError):
        pass
    paths = list(non_finite_paths(value))
    if paths:
        shown = ", ".join(paths[:5]) + (" ..." if len(paths) > 5 else "")
        raise NonFiniteNumber(f"{where}: not a finite number at {shown}")


class FiniteJSONEncoder(json.JSONEncoder):
    """The JSON encoder of the result columns: a NaN or an infinity raises
    :class:`NonFiniteNumber` naming its path instead of being written."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs["allow_nan"] = False
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def encode(self, o: object) -> str:
        try:
            return super().encode(o)
        except ValueError:
            check_json(o, "JSON column")
            raise
