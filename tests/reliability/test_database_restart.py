"""PostgreSQL restarts under a running site: a throwaway cluster (initdb in a temp
folder, its own port) with the BUCC demo seeded and runs queued, prepared once for the
module (migrating and seeding a database is seconds of CPU), and a private
redis-server.

- Behind a real gunicorn: after a restart, and after an outage, the next requests
  succeed with no manual step (CONN_HEALTH_CHECKS reconnects).
- *During traffic*: gunicorn serving leaderboard reads from a client thread, two
  Celery workers scoring the queued runs and beat (in one of them) running the
  sweeper. After the restart every run reaches a final state, scored exactly once
  (one Evaluation per run and test set), and the site answers again with no manual
  step."""

from __future__ import annotations

import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from evalhub import supervisor
from tests import workers
from tests.paths import REPO_ROOT
from tests.reliability.conftest import FAST_ENV, RedisServer, free_port, wait_for

pytestmark = pytest.mark.e2e


def _pg_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


class Cluster:
    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="ehpg-"))
        self.port = free_port()
        self.as_owner: list[str] = []
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            shutil.chown(self.dir, "postgres")
            self.as_owner = ["runuser", "-u", "postgres", "--"]

    def run(self, *args: str) -> None:
        subprocess.run(
            [*self.as_owner, *args], check=True, capture_output=True, timeout=120
        )

    def init(self) -> None:
        self.run(_pg_bin("initdb"), "-D", str(self.dir / "data"), "-A", "trust",
                 "-U", "postgres", "-E", "UTF8", "--no-sync")  # fmt: skip

    def ctl(self, action: str, *extra: str) -> None:
        opts = (
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        )
        self.run(_pg_bin("pg_ctl"), action, "-D", str(self.dir / "data"), "-w",
                 "-l", str(self.dir / "log"), "-o", opts, *extra)  # fmt: skip

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/evalhub"

    def create_database(self) -> None:
        import psycopg

        with psycopg.connect(
            f"postgresql://postgres@127.0.0.1:{self.port}/postgres", autocommit=True
        ) as conn:
            conn.execute("CREATE DATABASE evalhub")

    def destroy(self) -> None:
        try:
            self.ctl("stop", "-m", "immediate")
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.dir, ignore_errors=True)


RUNS = 10
BOARD = "/tasks/demo-bilingual-term-alignment/evaluation/leaderboard/"
PREPARE = """
from django.core.management import call_command
call_command("migrate", verbosity=0)
call_command("seed_demo", "--task-type", "bilingual_term_alignment")
"""
QUEUE_RUNS = f"""
from django.contrib.auth import get_user_model
from evalhub.competitions.models import *
from evalhub.competitions.services.runs import submit
from tasks import registry
task = SharedTask.objects.get(slug="demo-bilingual-term-alignment")
Phase.objects.filter(task=task).update(daily_limit=1000, total_limit=1000)
user = get_user_model().objects.create_user("restart-team")
team = Team.objects.create(name="restart-team")
team.members.add(user)
Registration.objects.create(task=task, team=team, status="approved")
data = next(iter(registry.get("bilingual_term_alignment").demo(seed=0).runs[0][2].values()))
for i in range({RUNS}):
    submit.submit_run(phase=task.phases.get(), user=user, filename="r.tsv",
                      data=data, method_name=f"run-{{i}}")
"""


@dataclass(frozen=True)
class Site:
    """The prepared database and its broker: what a node's processes share."""

    cluster: Cluster
    redis: RedisServer
    var: Path  # the data folder: the demo's files are stored there

    def env(self, **extra: str) -> dict[str, str]:
        return {
            **os.environ, **FAST_ENV, **workers.ENV,
            "DATABASE_URL": self.cluster.url, "REDIS_URL": self.redis.url,
            "EVALHUB_VAR_DIR": str(self.var), "DJANGO_DEBUG": "false", **extra,
        }  # fmt: skip


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[Site]:  # noqa: ANN001
    """The cluster migrated, the BUCC demo seeded and the runs queued by one process
    (each start of Django is seconds of CPU)."""
    if not (_pg_bin("initdb") and _pg_bin("pg_ctl")):
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
    cluster = Cluster()
    redis = RedisServer(tmp_path_factory.mktemp("redis"))
    try:
        cluster.init()
        cluster.ctl("start")
        cluster.create_database()
        redis.start()
        prepared = Site(cluster, redis, tmp_path_factory.mktemp("var"))
        subprocess.run([sys.executable, "manage.py", "shell", "-c", PREPARE + QUEUE_RUNS],
                       cwd=REPO_ROOT, env=prepared.env(), check=True, timeout=300,
                       capture_output=True)  # fmt: skip
        yield prepared
    finally:
        redis.kill()
        cluster.destroy()


def _query(url: str, sql: str) -> list[tuple]:  # type: ignore[type-arg]
    import psycopg

    try:
        with psycopg.connect(url.replace("postgres://", "postgresql://", 1)) as c:
            return list(c.execute(sql).fetchall())
    except psycopg.OperationalError:
        return []


def _get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return 0


def test_site_recovers_from_database_restart_without_manual_steps(site):  # noqa: ANN001
    pg_cluster, env = site.cluster, site.env()
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "evalhub.wsgi", "-b", f"127.0.0.1:{port}",
         "-w", "1", "--threads", "4", "--log-level", "warning"],
        cwd=REPO_ROOT, env=env, start_new_session=True,
    )  # fmt: skip
    page = f"http://127.0.0.1:{port}/"
    try:
        wait_for(lambda: _get(page) == 200, "gunicorn to serve the task list", 60)
        assert [_get(page) for _ in range(4)] == [200] * 4  # persistent connections

        pg_cluster.ctl("restart", "-m", "fast")
        # The very first requests after the restart succeed: no stale connection.
        assert [_get(page) for _ in range(4)] == [200] * 4

        pg_cluster.ctl("stop", "-m", "fast")
        assert _get(page) == 500  # an outage is an error page, not a hang
        pg_cluster.ctl("start")
        assert [_get(page) for _ in range(4)] == [200] * 4
        assert server.poll() is None
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def test_runs_in_flight_survive_a_database_restart_under_traffic(site):  # noqa: ANN001
    pg_cluster, env = site.cluster, site.env(EVALHUB_REFRESH_DELAY="1")
    total = int(
        _query(pg_cluster.url, "SELECT count(*) FROM competitions_submission")[0][0]
    )
    port = free_port()
    procs = []

    def spawn(*cmd: str) -> None:
        procs.append(subprocess.Popen(
            cmd, cwd=REPO_ROOT, env=env,
            start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        ))  # fmt: skip

    spawn(sys.executable, "-m", "gunicorn", "evalhub.wsgi", "-b", f"127.0.0.1:{port}",
          "-w", "1", "--threads", "4", "--log-level", "warning")  # fmt: skip
    # Beat (the sweeper) in the first worker: neither is killed.
    spawn(*workers.command("pg-a@%h", workers.all_queues(), beat=site.var / "beat"))
    spawn(*workers.command("pg-b@%h", workers.all_queues()))
    statuses: list[tuple[float, int]] = []
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            statuses.append((time.monotonic(), _get(f"http://127.0.0.1:{port}{BOARD}")))
            time.sleep(0.05)

    thread = threading.Thread(target=reader, daemon=True)
    try:
        wait_for(lambda: _get(f"http://127.0.0.1:{port}{BOARD}") == 200, "gunicorn", 60)
        thread.start()

        def scored() -> int:
            rows = _query(pg_cluster.url, "SELECT count(*) FROM competitions_submission "
                          "WHERE status = 'scored'")  # fmt: skip
            return int(rows[0][0]) if rows else 0

        wait_for(lambda: scored() >= 2, "the first runs to be scored")
        pg_cluster.ctl("restart", "-m", "fast")  # runs are being scored right now
        restarted = time.monotonic()
        wait_for(
            lambda: _query(pg_cluster.url, "SELECT count(*) FROM competitions_submission"
                           " WHERE status IN ('scored', 'failed')") == [(total,)],
            "every run in a final state after the restart",
        )  # fmt: skip
        # Runs now score in well under a second each (their figures come after, by
        # a job of their own): read on until the site has answered 20 times more
        # than 5 s after the restart, however early the runs were done.
        wait_for(
            lambda: sum(1 for t, _ in list(statuses) if t > restarted + 5) >= 20,
            "20 answers more than 5 s after the restart",
        )
        stop.set()
        thread.join(timeout=30)
        for proc in procs:
            assert proc.poll() is None, proc.args  # nothing crashed for good
    finally:
        stop.set()
        supervisor.stop_groups(procs, timeout=30)
    url = pg_cluster.url
    assert _query(url, "SELECT status, count(*) FROM competitions_submission "
                  "GROUP BY 1") == [("scored", total)]  # fmt: skip
    assert _query(url, "SELECT count(*) FROM (SELECT submission_id, test_set_id FROM "
                  "competitions_evaluation GROUP BY 1, 2 HAVING count(*) > 1) d") == [(0,)]  # fmt: skip
    assert _query(url, "SELECT count(*) FROM competitions_evaluation") == [(total,)]
    # The site answered during the run; after the restart it answers again.
    after = [s for t, s in statuses if t > restarted + 5]
    assert after and set(after[-20:]) == {200}, sorted(set(after))
