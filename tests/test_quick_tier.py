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


def test_the_quick_tier_and_the_suite_run_one_process_per_core():
    from types import SimpleNamespace

    from tests import scheduling

    def config(markexpr: str) -> SimpleNamespace:
        return SimpleNamespace(getoption=lambda name, default=None: markexpr)

    cores = os.cpu_count() or 1
    assert scheduling.pytest_xdist_auto_num_workers(config("quick")) == cores
    assert scheduling.pytest_xdist_auto_num_workers(config("")) == cores
    assert scheduling.pytest_xdist_auto_num_workers(config("slow")) == cores
