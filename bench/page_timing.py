"""Timing a page in one process (imported by the code ``leaderboard_page.py`` and
``big_board_page.py`` run in their stack's ``manage.py shell``): requests through
Django's test client, each timed and its SQL queries counted."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from django.db import connection
from django.test.utils import CaptureQueriesContext


def measure(
    client, path: str, n: int, before: Callable[[], None] | None = None
) -> dict[str, float]:  # noqa: ANN001
    """``n`` GETs of ``path`` (``before`` called ahead of each, untimed): mean,
    p50 and p99 in milliseconds, mean queries, the last answer's size."""
    times, queries, size = [], [], 0
    for _ in range(n):
        if before:
            before()
        with CaptureQueriesContext(connection) as q:
            t0 = time.perf_counter()
            r = client.get(path)
            times.append(time.perf_counter() - t0)
        assert r.status_code == 200, r.status_code
        queries.append(len(q.captured_queries))
        size = len(r.content)
    times.sort()
    return {
        "requests": n,
        "mean_ms": round(statistics.mean(times) * 1000, 2),
        "p50_ms": round(times[len(times) // 2] * 1000, 2),
        "p99_ms": round(times[int(0.99 * (len(times) - 1))] * 1000, 2),
        "queries": round(statistics.mean(queries), 1),
        "bytes": size,
    }


def bump(test_sets: list) -> None:  # type: ignore[type-arg]
    """What a new score does to the boards: their cached versions invalidated."""
    from evalhub.competitions.services.boards import boardcache

    for ts in test_sets:
        boardcache.invalidate(test_set_id=ts.pk, refresh_statistics=False)
