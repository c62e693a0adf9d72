"""Upload -> scored under ``manage.py up`` while the demo's refreshes run (issue 43.11).

Starts ``manage.py up`` (with the demo tasks) in a fresh data folder, waits until the
demo's runs are scored (their statistics and figures then refresh on the other
worker), and uploads ``--runs`` runs of the BUCC demo through the REST API, one every
``--every`` seconds, each timed from the upload's request to the moment the API says
``scored``. Prints p50, p90, p99 and the maximum, the load average around them, and
how much of it each run waited in the scoring queue and took to score (its row).

    .venv/bin/python bench/upload_to_scored.py --runs 20 --every 2

Target: p50 below 1 s. Scoring has a worker of its own under ``up`` (queue
``scoring``), so a run never waits behind a refresh drawing figures on the other
worker (queue ``default``)."""

from __future__ import annotations

import argparse
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stack import ROOT, free_port, machine_load, wait  # noqa: E402

from evalhub.client import Client  # noqa: E402

TASK, PHASE = "demo-bilingual-term-alignment", "evaluation"

#: Run in ``manage.py shell``: a participant with an approved team, limits out of the
#: way, an API token (printed) and the demo's best run as a file (its path printed).
SETUP = """
from django.contrib.auth import get_user_model
from evalhub.api.services import tokens
from evalhub.competitions.models import Phase
from evalhub.competitions.services import teams
from tasks import registry
user = get_user_model().objects.create_user('bench', password='pw-bench-1')
phase = Phase.objects.get(task__slug='{task}', slug='{phase}')
Phase.objects.filter(pk=phase.pk).update(daily_limit=10000, total_limit=10000)
reg = teams.register(task=phase.task, user=user, new_team_name='Bench')
type(reg).objects.filter(pk=reg.pk).update(status='approved')
print('TOKEN', tokens.create(user=user, name='bench').secret)
demo = registry.get('bilingual_term_alignment').demo(seed=0)
run = next(iter(demo.runs[0][2].values()))
open('{path}', 'wb').write(run)
"""


def main() -> None:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # still stop up
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--every", type=float, default=2.0)
    args = parser.parse_args()
    var = Path(tempfile.mkdtemp(prefix="evalhub-bench-up-"))
    port = free_port()
    env = {
        k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")
    }
    # The per-user limit on uploads (30 in 10 minutes) would refuse the bench's.
    env.update(EVALHUB_VAR_DIR=str(var), EVALHUB_SUBMIT_RATE="100000/600")
    log = (var / "up.log").open("wb")
    up = subprocess.Popen(
        [sys.executable, "manage.py", "up", "--bind", f"127.0.0.1:{port}"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        wait(lambda: _answers(base), "up to serve pages", timeout=600)
        wait(lambda: _demo_scored(var), "the demo's runs to be scored", timeout=900)
        run_file = var / "run.tsv"
        out = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c",
             SETUP.format(task=TASK, phase=PHASE, path=run_file)],
            cwd=ROOT, env=env, check=True, capture_output=True, text=True,
        ).stdout  # fmt: skip
        token = next(
            line.split()[1] for line in out.splitlines() if line[:5] == "TOKEN"
        )
        client = Client(base, token)
        print("load before:", machine_load())
        took: list[float] = []
        for i in range(args.runs):
            started = time.monotonic()
            answer = client.submit(
                task=TASK, phase=PHASE, method_name=f"bench-{i}", path=run_file
            )
            assert answer.status == 201, answer.payload
            run_id = answer.payload["id"]
            while client.get(f"/api/runs/{run_id}")["status"] != "scored":
                time.sleep(0.05)
            took.append(time.monotonic() - started)
            print(f"run {i + 1}: {took[-1]:.2f} s", flush=True)
            time.sleep(max(0.0, args.every - took[-1]))
        print("load after:", machine_load())
        waits, scoring = _stages(var)
        print(
            f"of which queued (enqueued -> started): p50 {statistics.median(waits):.2f} s,"
            f" max {max(waits):.2f} s; scoring (started -> finished): p50"
            f" {statistics.median(scoring):.2f} s, max {max(scoring):.2f} s"
        )
        cuts = statistics.quantiles(took, n=100, method="inclusive")
        print(
            f"upload -> scored over {len(took)} runs: p50 {statistics.median(took):.2f} s,"
            f" p90 {cuts[89]:.2f} s, p99 {cuts[98]:.2f} s, max {max(took):.2f} s"
        )
    finally:
        up.terminate()
        up.wait(timeout=60)


def _stages(var: Path) -> tuple[list[float], list[float]]:
    """Each bench run's wait in the scoring queue and its scoring, from its row."""
    with sqlite3.connect(var / "evalhub.sqlite3", timeout=10) as db:
        rows = db.execute(
            "SELECT julianday(started_at) - julianday(enqueued_at),"
            " julianday(finished_at) - julianday(started_at)"
            " FROM competitions_submission WHERE method_name LIKE 'bench-%'"
            " AND started_at IS NOT NULL AND finished_at IS NOT NULL"
        ).fetchall()
    day = 24 * 3600
    return [w * day for w, _ in rows] or [0.0], [s * day for _, s in rows] or [0.0]


def _demo_scored(var: Path) -> bool:
    try:
        with sqlite3.connect(var / "evalhub.sqlite3", timeout=10) as db:
            waiting = db.execute(
                "SELECT COUNT(*) FROM competitions_submission"
                " WHERE status IN ('validating', 'queued', 'scoring')"
            ).fetchone()[0]
            runs = db.execute("SELECT COUNT(*) FROM competitions_submission").fetchone()
    except sqlite3.Error:
        return False
    return runs[0] > 0 and waiting == 0


def _answers(base: str) -> bool:
    try:
        with urllib.request.urlopen(base + "/", timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


if __name__ == "__main__":
    main()
