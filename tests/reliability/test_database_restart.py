"""PostgreSQL restarts under a running site: a throwaway cluster (initdb in a temp
folder, its own port) behind a real gunicorn; after a restart, and after an outage,
the next requests succeed with no manual step (CONN_HEALTH_CHECKS reconnects)."""

from __future__ import annotations

import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.paths import REPO_ROOT
from tests.reliability.conftest import free_port, wait_for

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


@pytest.fixture
def pg_cluster() -> Iterator[Cluster]:
    if not (_pg_bin("initdb") and _pg_bin("pg_ctl")):
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
    cluster = Cluster()
    cluster.init()
    cluster.ctl("start")
    cluster.create_database()
    yield cluster
    cluster.destroy()


def _get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except (urllib.error.URLError, ConnectionError):
        return 0


def test_site_recovers_from_database_restart_without_manual_steps(
    pg_cluster, private_redis, tmp_path
):
    env = {
        **os.environ,
        "DATABASE_URL": pg_cluster.url,
        "REDIS_URL": private_redis.url,
        "EVALHUB_VAR_DIR": str(tmp_path),
        "DJANGO_DEBUG": "false",
    }
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=REPO_ROOT,
                   env=env, check=True, timeout=300)  # fmt: skip
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
