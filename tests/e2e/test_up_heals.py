"""``manage.py up`` as a user runs it (SQLite and the embedded Redis in a fresh var
folder): a worker SIGKILLed as the OOM killer would is started again while the web
keeps answering and every run is scored once; stopping it with SIGTERM or Ctrl-C
leaves none of its processes behind (SIGKILLed, neither: ``tests/test_docs_examples.py``
kills the demo site's ``up`` once its tests are done)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.paths import REPO_ROOT
from tests.processes import alive, descendants
from tests.reliability.conftest import wait_for
from tests.up_stack import Up

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture
def up(request, tmp_path) -> Iterator[Up]:  # noqa: ANN001
    stack = Up(tmp_path, demo=getattr(request, "param", False))
    yield stack
    stack.stop(signal.SIGKILL)


def test_a_killed_worker_is_started_again_and_runs_are_scored_once(up):  # noqa: ANN001
    worker = up.wait_ready()
    pool = descendants(worker)
    up.remember()
    os.kill(worker, signal.SIGKILL)  # as the OOM killer would
    # Runs submitted right after the kill wait in the queue for the new worker.
    up.manage("seed_demo", "--task-type", "term_extraction")
    assert up.get() == 200
    restarted = wait_for(
        lambda: [w for w in up.workers() if w != worker], "a new worker", timeout=60
    )
    assert up.get() == 200 and up.proc.poll() is None
    assert f"worker (pid {worker}) exited with status -9" in up.log()
    wait_for(lambda: not [p for p in pool if alive(p)], "the dead worker's pool", 10)

    def all_final() -> list[tuple[int, str, int, int]] | None:
        runs = up.runs()
        return (
            runs if runs and all(r[1] in ("scored", "failed") for r in runs) else None
        )

    runs = wait_for(all_final, "the demo runs to be scored", timeout=180)
    assert len(runs) == 3 and {r[1] for r in runs} == {"scored"}, runs
    assert {(r[2], r[3]) for r in runs} == {(1, 1)}, runs  # once each, one test set
    assert up.workers() == restarted

    up.proc.send_signal(signal.SIGTERM)
    assert up.proc.wait(timeout=60) == 0
    up.assert_nothing_left()


@pytest.mark.parametrize("up", [True], indirect=True)  # with the demo tasks
def test_ctrl_c_stops_up_and_everything_it_started(up):  # noqa: ANN001
    """A newcomer's first ``up`` (the demo's runs being scored or their figures
    drawn), stopped with Ctrl-C (SIGINT to ``up`` alone: its programs run in
    process groups of their own): ``up`` exits cleanly and the web, the busy worker, beat and Redis end,
    with no traceback of a lost worker.
    The deadlines only keep a broken stop from hanging the suite: how fast the
    stop is depends on the machine, not on what happened (issue 46)."""
    wait_for(lambda: "evalhub is up" in up.log(), "up to start", timeout=180)
    # redis, worker + pool, beat, web: all started (a pool's child may follow
    # its worker by a moment)
    wait_for(lambda: len(up.remember()) >= 6, "up's programs to start", timeout=60)
    started = up.remember()
    # A run's scoring takes tens of milliseconds, its figures most of a second
    # (their own job): stopped while a worker's pool process is on one of them.
    wait_for(up.in_hand, "a worker scoring a demo run or drawing its figures")
    up.proc.send_signal(signal.SIGINT)
    try:
        assert up.proc.wait(timeout=60) == 0, up.log()[-3000:]
    except subprocess.TimeoutExpired:
        pytest.fail(f"up still running 60 s after SIGINT:\n{up.log()[-3000:]}")
    wait_for(
        lambda: not [p for p in started if alive(p)],
        "the processes up started to end",
        timeout=60,
    )
    # The busy worker was asked to stop as Celery stops warmly (its pool process
    # ends its job, or is killed with it at the deadline), not SIGTERMed behind
    # its back: no lost-worker traceback in the newcomer's terminal.
    assert "WorkerLostError" not in up.log(), up.log()[-3000:]


def test_up_help_names_the_data_folder_variable():
    out = subprocess.run(
        [sys.executable, "manage.py", "up", "--help"], cwd=REPO_ROOT,
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout  # fmt: skip
    assert "EVALHUB_VAR_DIR" in out and "EVALHUB_SITE_URL" in out
