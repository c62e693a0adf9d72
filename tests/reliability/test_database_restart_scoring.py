"""PostgreSQL restarts *during traffic*: gunicorn serving leaderboard reads from a
client thread, two Celery workers scoring queued BUCC runs and beat running the
sweeper, all on a throwaway cluster. After the restart every run reaches a final
state, scored exactly once (one Evaluation per run and test set), and the site
answers again with no manual step."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest

from tests import workers
from tests.paths import REPO_ROOT
from tests.reliability.conftest import FAST_ENV, free_port, wait_for
from tests.reliability.test_database_restart import pg_cluster  # noqa: F401 - fixture

pytestmark = pytest.mark.e2e

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


def test_runs_in_flight_survive_a_database_restart_under_traffic(
    pg_cluster,  # noqa: F811
    private_redis,
    tmp_path,
):
    env = {
        **os.environ,
        **FAST_ENV,
        "DATABASE_URL": pg_cluster.url,
        "REDIS_URL": private_redis.url,
        "EVALHUB_VAR_DIR": str(tmp_path),
        "DJANGO_DEBUG": "false",
        "EVALHUB_REFRESH_DELAY": "1",
    }
    # The database migrated, the BUCC demo seeded and the runs queued by one
    # process (each start of Django is seconds of CPU).
    subprocess.run([sys.executable, "manage.py", "shell", "-c", PREPARE + QUEUE_RUNS],
                   cwd=REPO_ROOT, env=env, check=True, timeout=300,
                   capture_output=True)  # fmt: skip
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
    for name in ("pg-a", "pg-b"):
        spawn(*workers.command(f"{name}@%h", workers.all_queues()))
    spawn(sys.executable, "-m", "celery", "-A", "evalhub", "beat", "-s",
          str(tmp_path / "beat"))  # fmt: skip
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
        for proc in reversed(procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
    url = pg_cluster.url
    assert _query(url, "SELECT status, count(*) FROM competitions_submission "
                  "GROUP BY 1") == [("scored", total)]  # fmt: skip
    assert _query(url, "SELECT count(*) FROM (SELECT submission_id, test_set_id FROM "
                  "competitions_evaluation GROUP BY 1, 2 HAVING count(*) > 1) d") == [(0,)]  # fmt: skip
    assert _query(url, "SELECT count(*) FROM competitions_evaluation") == [(total,)]
    # The site answered during the run; after the restart it answers again.
    after = [s for t, s in statuses if t > restarted + 5]
    assert after and set(after[-20:]) == {200}, sorted(set(after))
