"""``manage.py up`` started by a test as a user runs it (SQLite and the embedded Redis
in a fresh data folder), and what the tests read of it: its log, its processes, its
runs, its pages (``Browser``: cookies, CSRF tokens and redirects over plain HTTP).
Used by ``tests/e2e/test_up_heals.py`` and ``tests/test_docs_examples.py`` (the demo
site: the guides' examples, up's mails, SIGKILLed at the end)."""

from __future__ import annotations

import http.cookiejar
import os
import re
import signal
import sqlite3
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path

from evalhub import worker_queues
from tests import workers
from tests.paths import REPO_ROOT
from tests.processes import alive, children_running, descendants
from tests.reliability.conftest import FAST_ENV, free_port, wait_for

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
        self.env.update(FAST_ENV, **workers.ENV, EVALHUB_VAR_DIR=str(var))
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

    def in_hand(self) -> bool:
        """A worker's pool process is on a job now: a run being scored or a scored
        run's figures being drawn."""
        with sqlite3.connect(self.var / "evalhub.sqlite3", timeout=10) as db:
            return bool(
                db.execute(
                    "SELECT 1 FROM competitions_submission WHERE status = 'scoring'"
                    " UNION SELECT 1 FROM competitions_evaluation"
                    " WHERE figures = 'drawing' LIMIT 1"
                ).fetchone()
            )

    def assert_nothing_left(self) -> None:
        started = self.remember()
        assert started, "up started no process"
        wait_for(
            lambda: not [p for p in started if alive(p)],
            f"the processes up started to end: {sorted(started)}",
            timeout=60,
        )
        assert not (self.var / "redis.sock").exists() or not _redis_answers(self.var)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """A fixture's end: up stopped (if a test has not), and any process it
        started that is still there (only after a test failed half-way) killed."""
        self.remember()
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        for pid in self.seen:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def _redis_answers(var: Path) -> bool:
    import redis

    try:
        return bool(redis.Redis(unix_socket_path=str(var / "redis.sock")).ping())
    except (redis.ConnectionError, OSError):
        return False


class Browser:
    """Cookies, CSRF tokens and redirects, as a browser keeps them."""

    def __init__(self, base: str):
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )

    def get(self, url: str) -> tuple[str, str]:
        """(final URL, page) after redirects."""
        full = url if url.startswith("http") else self.base + url
        with self.opener.open(full, timeout=30) as response:
            return response.geturl(), response.read().decode()

    def submit(self, url: str, fields: dict[str, str]) -> tuple[str, str]:
        """Load the form at ``url`` and post it with its CSRF token."""
        url, page = self.get(url)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert token, page[:2000]
        data = urllib.parse.urlencode({"csrfmiddlewaretoken": token[1], **fields})
        with self.opener.open(url, data.encode(), timeout=30) as response:
            return response.geturl(), response.read().decode()
