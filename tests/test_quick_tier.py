"""The quick tier the contributor's guide documents, ``pytest -m "not processes"``,
leaves out exactly the tests that start real processes (a worker, a live server, a
browser), as ``tests/scheduling.py`` marks them at collection."""

from __future__ import annotations

import ast
import re
import subprocess
import sys

from tests.paths import REPO_ROOT

QUICK = "tests/test_readme.py"
STARTS_A_WORKER = "tests/reliability/test_worker_faults.py"


def _tests_in(module: str) -> list[str]:
    tree = ast.parse((REPO_ROOT / module).read_text(encoding="utf-8"))
    return [
        f"{module}::{node.name}"
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
    ]


def test_the_quick_tier_leaves_out_the_tests_that_start_processes():
    # One collection (a subprocess: the marker is set while pytest collects).
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0"]
        + ["-m", "not processes", QUICK, STARTS_A_WORKER],
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
    assert int(deselected.group(1)) == len(_tests_in(STARTS_A_WORKER))
