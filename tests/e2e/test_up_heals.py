"""``manage.py up`` as a user runs it (SQLite and the embedded Redis in a fresh var
folder): a worker SIGKILLed as the OOM killer would is started again while the web
keeps answering and every run is scored once; stopping or even SIGKILLing ``up``
leaves none of its processes behind."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from evalhub import worker_queues
from tests.paths import REPO_ROOT
from tests.processes import alive, children_running, descendants
from tests.reliability.conftest import FAST_ENV, free_port, wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

#: up's scoring worker (its other worker takes the default queue: refreshes, mails).
WORKER = f"celery -A evalhub worker -Q {worker_queues.argument('scoring')} -c"
REFRESH_WORKER = f"celery -A evalhub worker -Q {worker_queues.argument('default')} -c"


class Up:
    def __init__(self, var: Path, *, demo: bool = False):
        self.var = var
        self.port = free_port()
        self.env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("DATABASE_URL", "REDIS_URL")
        }
        self.env.update(FAST_ENV, EVALHUB_VAR_DIR=str(var), EVALHUB_WORKER_NICE="0")
        self.log_path = var / "up.log"
        with self.log_path.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "manage.py", "up", *([] if demo else ["--no-demo"]),
                 "--bind", f"127.0.0.1:{self.port}"],
                cwd=REPO_ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT,
            )  # fmt: skip
        self.seen: set[int] = set()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def get(self, path: str = "/") -> int:
        url = f"http://127.0.0.1:{self.port}{path}"
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                return response.status
        except OSError:
            return 0

    def remember(self) -> set[int]:
        """Every process up started so far (its children's children too)."""
        self.seen |= descendants(self.proc.pid)
        return self.seen

    def workers(self) -> list[int]:
        return children_running(self.proc.pid, WORKER)

    def wait_ready(self) -> int:
        def ready() -> int | None:
            assert self.proc.poll() is None, self.log()[-3000:]
            workers = self.workers()
            # Both workers say " ready." (and each one started again once more).
            ready = self.log().count(" ready.") >= self.log().count("started again") + 2
            return workers[0] if workers and ready and self.get() == 200 else None

        return wait_for(ready, "up to serve pages and start its workers", timeout=240)

    def manage(self, *args: str) -> None:
        subprocess.run(
            [sys.executable, "manage.py", *args], cwd=REPO_ROOT, env=self.env,
            check=True, capture_output=True, timeout=300,
        )  # fmt: skip

    def runs(self) -> list[tuple[int, str, int, int]]:
        """(id, status, attempts, evaluations) of every run, read from SQLite."""
        with sqlite3.connect(self.var / "evalhub.sqlite3", timeout=10) as db:
            return db.execute(
                "SELECT s.id, s.status, s.attempts, COUNT(e.id)"
                " FROM competitions_submission s LEFT JOIN competitions_evaluation e"
                " ON e.submission_id = s.id GROUP BY s.id ORDER BY s.id"
            ).fetchall()

    def assert_nothing_left(self) -> None:
        started = self.remember()
        assert started, "up started no process"
        wait_for(
            lambda: not [p for p in started if alive(p)],
            f"the processes up started to end: {sorted(started)}",
            timeout=60,
        )
        assert not (self.var / "redis.sock").exists() or not _redis_answers(self.var)


def _redis_answers(var: Path) -> bool:
    import redis

    try:
        return bool(redis.Redis(unix_socket_path=str(var / "redis.sock")).ping())
    except (redis.ConnectionError, OSError):
        return False


@pytest.fixture
def up(request, tmp_path) -> Iterator[Up]:  # noqa: ANN001
    stack = Up(tmp_path, demo=getattr(request, "param", False))
    yield stack
    stack.remember()
    if stack.proc.poll() is None:
        stack.proc.kill()
        stack.proc.wait(timeout=10)
    for pid in stack.seen:  # only if a test failed half-way: they die with up
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


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


def test_nothing_outlives_a_killed_up(up):  # noqa: ANN001
    up.wait_ready()
    started = up.remember()
    assert len(started) >= 6  # redis, worker + pool, beat, gunicorn + 2 workers
    up.proc.kill()
    up.proc.wait(timeout=10)
    up.assert_nothing_left()


@pytest.mark.parametrize("up", [True], indirect=True)  # with the demo tasks
def test_ctrl_c_stops_up_and_everything_it_started_within_5_s(up):  # noqa: ANN001
    """A newcomer's first ``up`` (the demo's runs being scored), stopped with
    Ctrl-C (SIGINT to ``up`` alone: its programs run in process groups of their
    own): the web, the busy worker, beat and Redis end within 5 s."""
    wait_for(lambda: "evalhub is up" in up.log(), "up to start", timeout=180)
    wait_for(
        lambda: any(r[1] == "scoring" for r in up.runs()), "a demo run being scored"
    )
    started = up.remember()
    assert len(started) >= 6, up.log()[-3000:]  # redis, worker + pool, beat, web
    sent = time.monotonic()
    up.proc.send_signal(signal.SIGINT)
    try:
        assert up.proc.wait(timeout=5) == 0, up.log()[-3000:]
    except subprocess.TimeoutExpired:
        pytest.fail(f"up still running 5 s after SIGINT:\n{up.log()[-3000:]}")
    wait_for(
        lambda: not [p for p in started if alive(p)],
        "the processes up started to end",
        timeout=max(0.1, 5 - (time.monotonic() - sent)),
    )
