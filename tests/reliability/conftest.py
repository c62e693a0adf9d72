"""Fault-test harness: a private redis-server on its own port (killed and restarted by
the tests, never the shared one), real Celery worker processes (beat in one of them)
in their own process groups, and the test-only probe task type."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from evalhub import supervisor, worker_queues
from tests import workers
from tests.conftest import database_env
from tests.paths import REPO_ROOT
from tests.reliability import probe

#: Runs celery with the probe task type registered.
MAIN = "tests.reliability.worker_main"
DEADLINE_SECONDS = 240  # generous: CI machines may be loaded

#: Short timings so faults are noticed in seconds (production defaults are minutes).
FAST_ENV = {
    "EVALHUB_SCORING_HEARTBEAT_INTERVAL": "1",
    "EVALHUB_SCORING_HEARTBEAT_STALE_AFTER": "4",
    "EVALHUB_SWEEP_INTERVAL": "1",
    "EVALHUB_QUEUED_REENQUEUE_AFTER": "3",
}


def wait_for(
    predicate: Callable[[], object], what: str, timeout: float = DEADLINE_SECONDS
):  # noqa: ANN201
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """A throwaway redis-server without persistence: killing it loses its queues."""

    def __init__(self, workdir: Path):
        self.port = free_port()
        self.workdir = workdir
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no", "--dir", str(self.workdir)],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        wait_for(self.ping, "the private redis-server", timeout=20)

    def ping(self) -> bool:
        import redis

        try:
            return bool(redis.Redis.from_url(self.url, socket_timeout=1).ping())
        except (redis.ConnectionError, redis.TimeoutError):
            return False

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


@pytest.fixture
def private_redis(tmp_path) -> Iterator[RedisServer]:  # noqa: ANN001
    server = RedisServer(tmp_path)
    server.start()
    yield server
    server.kill()


@pytest.fixture
def broker(private_redis: RedisServer) -> Iterator[RedisServer]:
    """Point this process's Celery app (``.delay`` from services) at the private
    Redis, so no job reaches the shared broker or another engineer's worker."""
    from evalhub.celery import app

    def use(url: str) -> None:
        app.conf.broker_url = url
        app._pool = None  # noqa: SLF001 - the cached connection pools
        app.amqp._producer_pool = None  # noqa: SLF001

    old = app.conf.broker_url
    use(private_redis.url)
    yield private_redis
    use(old)


class Cluster:
    """Celery worker processes started (and only ever killed) by a test."""

    def __init__(self, broker: RedisServer, storage: dict, tmp: Path):  # type: ignore[type-arg]
        self.tmp = tmp
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.logs: dict[str, Path] = {}
        self.env = {
            **os.environ,
            **database_env(),
            **FAST_ENV,
            **workers.ENV,
            "REDIS_URL": broker.url,
            "EVALHUB_PRIVATE_ROOT": str(storage["root"]),
            "EVALHUB_CACHE_PREFIX": storage["cache_prefix"],
        }

    def _spawn(
        self, key: str, cmd: list[str], env: dict[str, str]
    ) -> subprocess.Popen[bytes]:
        log = self.tmp / f"{key}.log"
        self.logs[key] = log
        with log.open("wb") as out:
            proc = subprocess.Popen(
                cmd,
                cwd=REPO_ROOT,
                env={**self.env, **env},
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: kill pool children too
            )  # fmt: skip
        self.procs[key] = proc
        return proc

    def worker(
        self,
        key: str,
        *,
        queues: str = worker_queues.argument("all"),
        beat: bool = False,
        **env: str,
    ) -> str:
        """Start a worker; returns its node name (``<key>-<nonce>@<host>``). With
        ``beat``, beat runs in it (as in the ``worker`` fixture), not in a process
        of its own (a start of Django and Celery less): the sweeper, the
        refreshes that are due; killed with the worker."""
        name = f"{key}-{uuid.uuid4().hex[:6]}@{socket.gethostname()}"
        schedule = self.tmp / f"{key}-beat-schedule" if beat else None
        cmd = workers.command(name, queues, loglevel="INFO", main=MAIN, beat=schedule)
        self._spawn(key, cmd, env)
        return name

    def wait_ready(self, *names: str) -> None:
        def ready() -> bool:
            for key, proc in self.procs.items():
                assert proc.poll() is None, f"{key} exited:\n{self.log(key)[-3000:]}"
            return all(f"{n} ready" in self.log(n.split("-")[0]) for n in names)

        wait_for(ready, f"workers {names} to be ready", timeout=60)

    def log(self, key: str) -> str:
        return self.logs[key].read_text(errors="replace")

    def kill(self, key: str) -> None:
        proc = self.procs[key]
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)

    def stop_all(self) -> None:
        supervisor.stop_groups(list(self.procs.values()), timeout=20)


@pytest.fixture
def cluster(broker, isolated_storage, tmp_path) -> Iterator[Cluster]:  # noqa: ANN001
    c = Cluster(broker, isolated_storage, tmp_path)
    yield c
    c.stop_all()


@pytest.fixture
def probe_phase(phase, test_set, monkeypatch):  # noqa: ANN001, ANN201
    """The fixtures' phase, its task switched to the probe task type, limits raised."""
    from tasks import registry

    monkeypatch.setitem(registry.REGISTRY, probe.SLUG, probe.PATH)
    registry.get.cache_clear()
    task = phase.task
    task.task_type = probe.SLUG
    task.save(update_fields=["task_type"])
    phase.daily_limit = phase.total_limit = 100
    phase.save(update_fields=["daily_limit", "total_limit"])
    yield phase
    registry.get.cache_clear()
