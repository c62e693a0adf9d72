"""The one way the tests start a real Celery worker process: the command line
(``tests/conftest.py``'s ``worker`` fixture, the reliability harness and the database
restart test all build it here), and the queues the settings route jobs to."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

#: The environment of every worker process the tests start (with the settings'
#: default, 10, a worker lowers its CPU priority to leave the web its CPU; a test's
#: worker shares the machine with other test processes instead, and at nice 10 the
#: test waiting on it waited behind them; its own session's autogroup lowered too,
#: for the fault tests' workers in sessions of their own).
ENV = {"EVALHUB_WORKER_NICE": "0"}


def all_queues() -> str:
    """Every queue, comma-separated (``evalhub/worker_queues.py``; that it holds every
    queue the settings route a job to is ``tests/deploy/test_worker_queues.py``'s)."""
    from django.conf import settings

    return ",".join(settings.WORKER_QUEUES["all"])


def command(
    name: str,
    queues: str,
    *,
    loglevel: str = "WARNING",
    main: str = "tests.worker_main",
    beat: Path | None = None,
) -> list[str]:
    """One worker process, one job at a time, no start-up chatter with other
    workers; ``main`` is the module run with ``-m``: the celery command, each
    distinct figure drawn once per process (``tests/worker_main.py``; the
    reliability tests use one that registers their probe task type too). With ``beat`` (its schedule
    file), the worker runs beat too: the sweeper and the refreshes that are due
    (``services/boards/refreshes.py``) are sent by beat, as under ``manage.py up``."""
    embedded = ["-B", "--schedule", str(beat)] if beat is not None else []
    return [
        sys.executable, "-m", main, "-A", "evalhub", "worker", "-Q", queues,
        "-c", "1", "--without-mingle", "--without-gossip", "--loglevel", loglevel,
        "-n", name, *embedded,
    ]  # fmt: skip


class SharedWorker:
    """One real Celery worker process (beat in it) kept by a test process for every
    test that asks for ``worker`` (``tests/conftest.py``), instead of one started and
    stopped per test: Django, Celery and, in its pool process, the scorers and the
    plotting stack are imported once per test process, not once per test.

    Nothing carries over from one test to the next: each test has fresh database
    rows; the worker's storage folder is emptied and its cache namespace cleared
    before each test (``tests/conftest.py``'s ``isolated_storage``); the worker
    consumes only while such a test runs (Celery's remote control:
    ``add_consumer``, ``cancel_consumer``), and at the test's end waits until it
    holds no job, as a worker stopped warmly finishes its job, so no job of one
    test runs in another test's database rows or storage."""

    def __init__(self, root: Path, beat: Path, env: dict[str, str]):
        import uuid

        self.root = root
        self.beat = beat
        self.cache_prefix = f"test-worker-{uuid.uuid4().hex[:12]}"
        self.env = {
            **env,
            **ENV,
            "EVALHUB_PRIVATE_ROOT": str(root),
            "EVALHUB_CACHE_PREFIX": self.cache_prefix,
        }
        self.proc: subprocess.Popen[bytes] | None = None
        self.name = ""

    def _start(self) -> None:
        import socket
        import uuid

        from tests.paths import REPO_ROOT

        self.name = f"test-{uuid.uuid4().hex[:8]}@{socket.gethostname()}"
        cmd = command(self.name, all_queues(), beat=self.beat)
        self.proc = subprocess.Popen(cmd, cwd=REPO_ROOT, env=self.env)

    def empty_storage(self) -> None:
        for path in self.root.iterdir():
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()

    def resume(self, timeout: float = 120) -> subprocess.Popen[bytes]:
        """The worker running (started if it is not) and consuming every queue."""
        from evalhub.celery import app

        if self.proc is None or self.proc.poll() is not None:
            self._start()
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        while not app.control.ping(destination=[self.name], timeout=0.5):
            assert self.proc.poll() is None, "the worker exited as it started"
            assert time.monotonic() < deadline, f"no answer from {self.name}"
        for queue in all_queues().split(","):
            app.control.add_consumer(queue, destination=[self.name], reply=True)
        return self.proc

    def pause(self, timeout: float = 120) -> None:
        """The worker consuming nothing, once the jobs it holds have ended."""
        from evalhub.celery import app

        assert self.proc is not None
        if self.proc.poll() is not None:
            return
        for queue in all_queues().split(","):
            app.control.cancel_consumer(queue, destination=[self.name], reply=True)
        inspect = app.control.inspect(destination=[self.name], timeout=1)
        deadline = time.monotonic() + timeout
        while (inspect.active() or {}).get(self.name) != [] or (
            inspect.reserved() or {}
        ).get(self.name) != []:
            assert time.monotonic() < deadline, f"{self.name} still holds a job"
            time.sleep(0.2)

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=30)


def scored_by(proc: subprocess.Popen[bytes], sub: Any, timeout: float = 120) -> Any:  # noqa: ANN401
    """``sub`` (a submitted run) once the test's worker ``proc`` has scored it: a
    test with a worker consuming leaves the scoring job the submission sent to
    it (called in the test process too, the job would find the run claimed by
    the worker and leave it to it). The deadline only stops a test that would
    hang."""
    deadline = time.monotonic() + timeout
    sub.refresh_from_db()
    while not sub.is_terminal:
        assert proc.poll() is None, "the worker died"
        assert time.monotonic() < deadline, f"run {sub.pk} is still {sub.status}"
        time.sleep(0.2)
        sub.refresh_from_db()
    assert sub.status == "scored", sub.failure_message
    return sub
