"""The quick tier the contributor's guide documents, ``pytest -m quick``, leaves out
exactly the tests that start real processes (a worker, a live server, a browser)
and those of the modules ``tests/scheduling.py`` lists as slow, as it marks them
at collection."""

from __future__ import annotations

import subprocess
import sys

from tests.paths import REPO_ROOT
from tests.scheduling import SLOW

QUICK = "tests/test_readme.py"
STARTS_A_WORKER = "tests/reliability/test_worker_faults.py"
A_SLOW_ONE = "tests/competitions/test_archive.py"


def _collected(*marker: str) -> list[str]:
    """The test ids pytest collects from the three modules (a subprocess: the
    markers are set while pytest collects)."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0"]
        + [*marker, QUICK, STARTS_A_WORKER, A_SLOW_ONE],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return [line for line in done.stdout.splitlines() if "::" in line]


def test_the_quick_tier_leaves_out_the_tests_that_start_processes_and_slow_ones():
    every = _collected()
    quick = _collected("-m", "quick")
    assert quick == [t for t in every if t.startswith(QUICK + "::")]
    for module in (STARTS_A_WORKER, A_SLOW_ONE):
        assert any(t.startswith(module + "::") for t in every), module


def test_every_slow_module_is_there():
    """A module renamed or removed leaves no stale name in the list."""
    assert A_SLOW_ONE in SLOW
    missing = sorted(m for m in SLOW if not (REPO_ROOT / m).is_file())
    assert not missing, missing
