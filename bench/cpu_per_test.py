"""A pytest plugin: the CPU each test spends with the processes it starts, for the
test-suite rows of ``bench/README.md``.

    CI=true PYTHONPATH=bench /usr/bin/time -v .venv/bin/pytest -n 0 -m processes \\
        -p cpu_per_test

writes one line per test to ``$CPU_PER_TEST`` (default ``cpu_per_test.tsv``): CPU
seconds (user + system of the test process and of the children it waited for, as
``/usr/bin/time`` counts them) and wall seconds from the test's setup to its
teardown, then the test's id. A process kept across tests (the test process's
worker, a module's ``up``) is counted in the test whose teardown stops it. With
``CPU_PER_TEST_NO_BROWSERS=1`` the tests that drive Chromium (fixtures ``browser``,
``page``) are left out."""

from __future__ import annotations

import os
import resource
import time

import pytest


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> None:
    if os.environ.get("CPU_PER_TEST_NO_BROWSERS") != "1":
        return
    from tests.scheduling import BROWSER_FIXTURES  # imported once pytest has the root

    kept, browsers = [], []
    for item in items:
        uses = BROWSER_FIXTURES.intersection(getattr(item, "fixturenames", ()))
        (browsers if uses else kept).append(item)
    items[:] = kept
    config.hook.pytest_deselected(items=browsers)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):  # noqa: ANN201
    cpu, wall = _cpu(), time.monotonic()
    result = yield
    with open(os.environ.get("CPU_PER_TEST", "cpu_per_test.tsv"), "a") as out:
        out.write(f"{_cpu() - cpu:.1f}\t{time.monotonic() - wall:.1f}\t{item.nodeid}\n")
    return result
