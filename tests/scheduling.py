"""How the test processes share the suite (a plugin of ``tests/conftest.py``): how
many there are for ``-n auto``, and in which order they take the modules."""

from __future__ import annotations

import os

import pytest


def _module(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


#: Fixtures that start real processes (a Celery worker, a live server, Chromium, the
#: sign-in tests' OpenID Connect provider).
_PROCESSES = frozenset(
    ("worker", "own_worker", "live_server", "browser", "page", "oidc_provider")
)


def _starts_processes(item: pytest.Item) -> bool:
    return bool(
        item.get_closest_marker("e2e")
        or item.get_closest_marker("slow")
        or _PROCESSES.intersection(getattr(item, "fixturenames", ()))
    )


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(items: list[pytest.Item]):  # noqa: ANN201
    """The tests that start real processes are marked ``processes`` before ``-m``
    deselects by marker: the quick tier, ``pytest -m "not processes"``, leaves them
    out.

    Then, after every other plugin (pytest-django's own sorting included), the
    modules whose tests start real processes run first. pytest-xdist hands
    out whole modules (``--dist loadfile``) in this order, and those are the long
    ones, mostly waiting on their processes: started first, the many short
    modules fill the other processes meanwhile and at the end, instead of one
    long module running alone while the other cores have nothing left to do."""
    for item in items:
        if _starts_processes(item):
            item.add_marker("processes")
    result = yield
    first = {_module(item) for item in items if item.get_closest_marker("processes")}
    # A stable sort: within each part the order stays as it was.
    items.sort(key=lambda item: _module(item) not in first)
    return result


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one test process more than cores. Many tests wait on real
    processes (a worker scoring, a browser loading a page, a service
    restarting); the extra process keeps the cores busy meanwhile."""
    return (os.cpu_count() or 1) + 1
