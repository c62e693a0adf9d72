"""Load benchmark: gunicorn (2 processes x 4 threads) and two Celery workers on
loopback, a private redis-server, the BUCC demo task; measures throughput and p50/p99
latency of leaderboard reads and of run submissions (the synchronous upload +
validation), and how fast the two workers score the submitted runs.

Run: ``.venv/bin/python bench/load.py`` (SQLite in a temp folder), or with
``--database-url postgres://postgres@127.0.0.1:5432/postgres`` to create and drop a
throwaway database ``evalhub_load_<pid>`` on that server. Everything listens on
127.0.0.1 only; every phase has a time bound. Results: ``bench/results/load-*.json``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import urlparse, urlunparse

from evalhub import supervisor, worker_queues

sys.path.insert(0, str(Path(__file__).resolve().parent))
from stack import PASSWORD, PHASE, ROOT, TASK, free_port, wait  # noqa: E402


class Client:
    """A tiny HTTP/1.1 client with a cookie jar and keep-alive (stdlib only)."""

    def __init__(self, port: int):
        self.port = port
        self.cookies: dict[str, str] = {}
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def request(self, method: str, path: str, body: bytes = b"", headers=None):  # noqa: ANN001, ANN201
        headers = dict(headers or {})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        for attempt in range(2):
            try:
                self.conn.request(method, path, body=body or None, headers=headers)
                response = self.conn.getresponse()
                data = response.read()
                break
            except (http.client.HTTPException, ConnectionError):
                self.conn.close()
                self.conn = http.client.HTTPConnection(
                    "127.0.0.1", self.port, timeout=60
                )
                if attempt:
                    raise
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response.status, data

    def csrf(self) -> str:
        return self.cookies.get("csrftoken", "")

    def login(self, username: str) -> None:
        self.request("GET", "/accounts/login/")
        form = f"login={username}&password={PASSWORD}&csrfmiddlewaretoken={self.csrf()}"
        status, _ = self.request(
            "POST", "/accounts/login/", form.encode(),
            {"Content-Type": "application/x-www-form-urlencoded",
             "Referer": f"http://127.0.0.1:{self.port}/accounts/login/"},
        )  # fmt: skip
        if status != 302:
            raise SystemExit(f"login of {username} failed: HTTP {status}")

    def submit(self, data: bytes, method: str) -> int:
        path = f"/tasks/{TASK}/{PHASE}/submit/"
        self.request("GET", path)
        boundary = uuid.uuid4().hex
        parts = [
            ("csrfmiddlewaretoken", None, self.csrf().encode()),
            ("method_name", None, method.encode()),
            ("run", "run.tsv", data),
        ]
        body = b""
        for name, filename, value in parts:
            disposition = f'form-data; name="{name}"' + (
                f'; filename="{filename}"' if filename else ""
            )
            body += (
                f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n".encode()
            )
            body += value + b"\r\n"
        body += f"--{boundary}--\r\n".encode()
        status, _ = self.request(
            "POST", path, body,
            {"Content-Type": f"multipart/form-data; boundary={boundary}",
             "Referer": f"http://127.0.0.1:{self.port}{path}"},
        )  # fmt: skip
        return status


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def summary(latencies: list[float], elapsed: float, errors: int) -> dict:  # type: ignore[type-arg]
    return {
        "requests": len(latencies),
        "errors": errors,
        "seconds": round(elapsed, 2),
        "throughput_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": round(statistics.median(latencies) * 1000, 1) if latencies else None,
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 1) if latencies else None,
    }


def run_threads(n: int, target) -> None:  # noqa: ANN001
    threads = [threading.Thread(target=target, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def main() -> None:  # noqa: PLR0915 - one linear script
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default="")
    parser.add_argument("--read-clients", type=int, default=8)
    parser.add_argument("--read-seconds", type=float, default=20)
    parser.add_argument("--submit-clients", type=int, default=4)
    parser.add_argument("--submissions", type=int, default=40)
    parser.add_argument("--score-timeout", type=float, default=600)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="evalhub-load-"))
    procs: list[subprocess.Popen[bytes]] = []
    redis_port, web_port = free_port(), free_port()
    env = {
        **os.environ,
        "EVALHUB_VAR_DIR": str(tmp),
        "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
        "DJANGO_DEBUG": "false",
        "EVALHUB_SUBMIT_RATE": "1000000/60",
        "EVALHUB_LOGIN_RATE": "1000000/60",
        "EVALHUB_LOG_LEVEL": "WARNING",
    }
    db_name = ""
    if args.database_url:
        db_name = f"evalhub_load_{os.getpid()}"
        parts = urlparse(args.database_url)
        admin_url = args.database_url
        env["DATABASE_URL"] = urlunparse(parts._replace(path=f"/{db_name}"))
        _psql(admin_url, f"CREATE DATABASE {db_name}")
    try:
        procs.append(subprocess.Popen(
            ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no", "--dir", str(tmp)],
            stdout=subprocess.DEVNULL, start_new_session=True))  # fmt: skip
        manage = [sys.executable, "manage.py"]
        subprocess.run(
            [*manage, "migrate", "-v", "0"], cwd=ROOT, env=env, check=True, timeout=600
        )
        # Demo task with its runs scored synchronously later by the workers.
        subprocess.run([*manage, "seed_demo", "--task-type", "bilingual_term_alignment"],
                       cwd=ROOT, env=env, check=True, timeout=600, stdout=subprocess.DEVNULL)  # fmt: skip
        users = [f"load{i}" for i in range(args.submit_clients)]
        setup = (
            "from django.contrib.auth import get_user_model\n"
            "from evalhub.competitions.models import *\n"
            "from tasks import registry\n"
            f"task = SharedTask.objects.get(slug={TASK!r})\n"
            "Phase.objects.filter(task=task).update(daily_limit=100000, total_limit=100000)\n"
            f"for name in {users!r}:\n"
            f"    u = get_user_model().objects.create_user(name, password={PASSWORD!r})\n"
            "    team = Team.objects.create(name=name)\n"
            "    team.members.add(u)\n"
            "    Registration.objects.create(task=task, team=team, status='approved')\n"
            "demo = registry.get('bilingual_term_alignment').demo(seed=0)\n"
            f"open({str(tmp / 'run.tsv')!r}, 'wb').write(next(iter(demo.runs[0][2].values())))\n"
        )
        subprocess.run(
            [*manage, "shell", "-c", setup], cwd=ROOT, env=env, check=True, timeout=300
        )
        run_bytes = (tmp / "run.tsv").read_bytes()

        procs.append(subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "evalhub.wsgi", "-b", f"127.0.0.1:{web_port}",
             "-w", "2", "--threads", "4", "--log-level", "warning"],
            cwd=ROOT, env=env, start_new_session=True))  # fmt: skip
        for name in ("load-a", "load-b"):
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "evalhub", "worker", "-Q", worker_queues.argument("all"),
                 "-c", "1", "--without-mingle", "--without-gossip", "--loglevel", "WARNING",
                 "-n", f"{name}@%h"],
                cwd=ROOT, env=env, start_new_session=True,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))  # fmt: skip
        board = f"/tasks/{TASK}/{PHASE}/leaderboard/"
        probe = Client(web_port)
        wait(lambda: _ok(probe, board), "gunicorn", 60)
        # The demo runs are scored before the read test (a full leaderboard).
        wait(
            lambda: _count_final(env) >= 2,
            "the demo runs to be scored",
            args.score_timeout,
        )

        # --- leaderboard reads -------------------------------------------------------
        reads: list[float] = []
        read_errors = [0]
        stop_at = time.monotonic() + args.read_seconds

        def reader(i: int) -> None:
            c = Client(web_port)
            c.request("GET", board)  # warm-up: connection, caches (not counted)
            while time.monotonic() < stop_at:
                t0 = time.perf_counter()
                status, _ = c.request("GET", board)
                dt = time.perf_counter() - t0
                if status == 200:
                    reads.append(dt)
                else:
                    read_errors[0] += 1

        t0 = time.monotonic()
        run_threads(args.read_clients, reader)
        read_result = summary(reads, time.monotonic() - t0, read_errors[0])

        # --- submissions -------------------------------------------------------------
        before = _count_final(env)
        posts: list[float] = []
        post_errors = [0]
        per_client = [args.submissions // args.submit_clients] * args.submit_clients

        def submitter(i: int) -> None:
            c = Client(web_port)
            c.login(users[i])
            for k in range(per_client[i]):
                t0 = time.perf_counter()
                status = c.submit(run_bytes, f"load-{i}-{k}")
                dt = time.perf_counter() - t0
                if status == 302:
                    posts.append(dt)
                else:
                    post_errors[0] += 1

        t0 = time.monotonic()
        run_threads(args.submit_clients, submitter)
        submit_elapsed = time.monotonic() - t0
        submit_result = summary(posts, submit_elapsed, post_errors[0])
        wanted = before + len(posts)
        wait(
            lambda: _count_final(env) >= wanted,
            "the runs to be scored",
            args.score_timeout,
        )
        scored_elapsed = time.monotonic() - t0
        scoring = {
            "runs": len(posts),
            "seconds_from_first_upload_to_last_scored": round(scored_elapsed, 1),
            "runs_scored_per_minute": round(len(posts) / scored_elapsed * 60, 1),
            "failed": _count_failed(env),
        }
        result = {
            "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                        "system": platform.platform()},
            "database": "postgresql" if db_name else "sqlite",
            "setup": {"gunicorn": "2 processes x 4 threads", "celery": "2 workers x 1 process",
                      "read_clients": args.read_clients, "submit_clients": args.submit_clients,
                      "run_bytes": len(run_bytes)},
            "leaderboard_reads": read_result,
            "submissions": submit_result,
            "scoring": scoring,
        }  # fmt: skip
        print(json.dumps(result, indent=2))
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        name = f"load-{result['database']}-{time.strftime('%Y%m%d-%H%M', time.gmtime())}.json"
        (out / name).write_text(json.dumps(result, indent=2) + "\n")
        print(f"saved {out / name}")
    finally:
        supervisor.stop_groups(procs, timeout=30)
        if db_name:
            _psql(args.database_url, f"DROP DATABASE IF EXISTS {db_name} WITH (FORCE)")
        shutil.rmtree(tmp, ignore_errors=True)


def _ok(client: Client, path: str) -> bool:
    try:
        return client.request("GET", path)[0] == 200
    except OSError:
        return False


def _query(env: dict[str, str], where: str) -> int:
    sql = f"SELECT count(*) FROM competitions_submission WHERE {where}"
    url = env.get("DATABASE_URL")
    if url:
        import psycopg

        with psycopg.connect(url.replace("postgres://", "postgresql://", 1)) as c:
            return int(c.execute(sql).fetchone()[0])
    import sqlite3

    with sqlite3.connect(Path(env["EVALHUB_VAR_DIR"]) / "evalhub.sqlite3") as c:
        return int(c.execute(sql).fetchone()[0])


def _count_final(env: dict[str, str]) -> int:
    return _query(env, "status IN ('scored', 'failed')")


def _count_failed(env: dict[str, str]) -> int:
    return _query(env, "status = 'failed'")


def _psql(url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(
        url.replace("postgres://", "postgresql://", 1), autocommit=True
    ) as c:
        c.execute(sql)


if __name__ == "__main__":
    main()
