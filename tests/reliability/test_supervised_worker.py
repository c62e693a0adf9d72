"""The supervisor of ``manage.py up`` with real worker processes on a private broker:
the worker is SIGKILLed while it scores a run; the supervisor starts a new one, and the
run is scored exactly once more (the sweeper re-queues it, the claim lets one worker
win), then stopping the supervisor leaves no process behind."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import uuid

import pytest

from evalhub.competitions.models import Evaluation, Submission
from evalhub.competitions.services.runs import submit
from tests import workers
from tests.conftest import database_env
from tests.paths import REPO_ROOT
from tests.processes import alive, children_running, descendants
from tests.reliability.conftest import FAST_ENV, wait_for

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
]

WORKER = "worker_main -A evalhub worker"


def test_the_run_in_flight_is_scored_once_by_the_restarted_worker(
    broker, isolated_storage, probe_phase, participant, team, demo_run, tmp_path
):
    node = f"sup-{uuid.uuid4().hex[:6]}@{socket.gethostname()}"
    env = {
        **os.environ, **database_env(), **FAST_ENV, **workers.ENV,
        "REDIS_URL": broker.url,
        "EVALHUB_PRIVATE_ROOT": str(isolated_storage["root"]),
        "EVALHUB_CACHE_PREFIX": isolated_storage["cache_prefix"],
    }  # fmt: skip
    log = tmp_path / "supervisor.log"
    with log.open("wb") as out:
        supervisor = subprocess.Popen(
            [sys.executable, "-m", "tests.reliability.supervised_main", node,
             str(tmp_path / "beat-schedule")],
            cwd=REPO_ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    started: set[int] = set()
    try:

        def ready(count: int) -> bool:
            assert supervisor.poll() is None, log.read_text()[-3000:]
            return log.read_text().count(f"{node} ready.") >= count

        wait_for(lambda: ready(1), "the supervised worker", timeout=120)
        sub = submit.submit_run(
            phase=probe_phase, user=participant, filename="slow-6.tsv",
            data=demo_run, method_name="in flight",
        )  # fmt: skip

        def heartbeating() -> bool:
            sub.refresh_from_db()
            return sub.status == "scoring" and sub.heartbeat_at is not None

        wait_for(heartbeating, "the worker to score the run")
        (worker,) = children_running(supervisor.pid, WORKER)
        started |= descendants(supervisor.pid)
        os.kill(worker, signal.SIGKILL)

        def final() -> Submission | None:
            sub.refresh_from_db()
            return sub if sub.is_terminal else None

        done = wait_for(final, "the run to be scored again", timeout=180)
        assert done.status == "scored", done.failure_message
        assert done.attempts == 2
        assert Evaluation.objects.filter(submission=done).count() == 1
        (restarted,) = children_running(supervisor.pid, WORKER)
        assert restarted != worker and ready(2)
        assert f"worker (pid {worker}) exited with status -9" in log.read_text()

        started |= descendants(supervisor.pid)
        supervisor.send_signal(signal.SIGTERM)
        assert supervisor.wait(timeout=60) == 0
        wait_for(
            lambda: not [p for p in started if alive(p)],
            "the supervised processes to end",
            timeout=60,
        )
    finally:
        started |= descendants(supervisor.pid)
        if supervisor.poll() is None:
            supervisor.kill()
            supervisor.wait(timeout=10)
        for pid in started:  # only after a failure half-way: they die with it
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
