"""The quick tier the contributor's guide documents, ``pytest -m quick``, leaves out
exactly the tests that start real processes (a worker, a live server, a browser)
and those of the modules ``tests/scheduling.py`` lists as slow, as it marks them
at collection."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys

from tests.paths import REPO_ROOT
from tests.scheduling import SLOW

QUICK = "tests/test_readme.py"
STARTS_A_WORKER = "tests/reliability/test_worker_faults.py"
A_SLOW_ONE = "tests/rankings/test_commit_races.py"


def _tests_in(module: str) -> list[str]:
    """The module's test functions (none of the three is parametrised)."""
    tree = ast.parse((REPO_ROOT / module).read_text(encoding="utf-8"))
    return [
        f"{module}::{node.name}"
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
    ]


def test_the_quick_tier_leaves_out_the_tests_that_start_processes_and_slow_ones():
    # One collection (a subprocess: the markers are set while pytest collects).
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0"]
        + ["-m", "quick", QUICK, STARTS_A_WORKER, A_SLOW_ONE],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    selected = [line for line in done.stdout.splitlines() if "::" in line]
    assert selected == _tests_in(QUICK)
    deselected = re.search(r"\((\d+) deselected\)", done.stdout)
    assert deselected, done.stdout
    left_out = _tests_in(STARTS_A_WORKER) + _tests_in(A_SLOW_ONE)
    assert _tests_in(STARTS_A_WORKER) and _tests_in(A_SLOW_ONE)
    assert int(deselected.group(1)) == len(left_out)


def test_every_slow_module_is_there():
    """A module renamed or removed leaves no stale name in the list."""
    assert A_SLOW_ONE in SLOW
    missing = sorted(m for m in SLOW if not (REPO_ROOT / m).is_file())
    assert not missing, missing


def test_one_process_per_core_and_one_more_for_the_waiting_modules():
    from types import SimpleNamespace

    from tests import scheduling

    def config(markexpr: str) -> SimpleNamespace:
        return SimpleNamespace(getoption=lambda name, default=None: markexpr)

    cores = os.cpu_count() or 1
    auto = scheduling.pytest_xdist_auto_num_workers
    for markexpr in ("quick", "slow", "not processes", "slow and not e2e"):
        assert auto(config(markexpr)) == cores, markexpr
    for markexpr in ("", "processes", "e2e", "processes or slow"):
        assert auto(config(markexpr)) == cores + 1, markexpr


class _Config:
    """What pytest-xdist's file scheduling reads of the configuration."""

    def __init__(self, dist: str):
        self.dist = dist

    def getoption(self, name: str, default: object = None) -> object:
        return self.dist if name == "dist" else default

    def getvalue(self, name: str) -> object:
        return ["3*popen"] if name == "tx" else None


def test_the_waiting_modules_are_one_unit_of_work_the_others_one_each():
    from tests import scheduling

    assert scheduling.pytest_xdist_make_scheduler(_Config("load"), None) is None
    scheduler = scheduling.pytest_xdist_make_scheduler(_Config("loadfile"), None)
    assert STARTS_A_WORKER in scheduling.WAITING
    waiting = {scheduler._split_scope(f"{m}::test_x") for m in scheduling.WAITING}  # noqa: SLF001
    assert waiting == {scheduling.WAITING_SCOPE}
    for module in (QUICK, A_SLOW_ONE, "tests/browser/test_accessibility.py"):
        assert scheduler._split_scope(f"{module}::test_x[a]") == module  # noqa: SLF001
    missing = sorted(m for m in scheduling.WAITING if not (REPO_ROOT / m).is_file())
    assert not missing, missing


def test_no_waiting_module_drives_a_browser():
    """The waiting modules' process starts no Chromium: no test of theirs uses a
    browser fixture, directly or through another fixture (pytest's own list of the
    fixtures each test uses; a live server, a thread, they may)."""
    from tests import scheduling

    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--fixtures-per-test", "-q", "-n", "0"]
        + sorted(scheduling.WAITING),
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    used = re.findall(r"^(\w+) -- ", done.stdout, flags=re.MULTILINE)
    assert "worker" in used and "live_server" in used  # the list was read
    assert not scheduling.BROWSER_FIXTURES.intersection(used), done.stdout
