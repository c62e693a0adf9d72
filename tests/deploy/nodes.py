"""The processes of ``test_two_nodes.py``: two evalhub nodes (gunicorn, a Celery
worker, beat) started in their own process groups with the storage settings an
operator sets, and the requests an operator makes of them (a bundle's manifest, a
bearer token, a signed-in session)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from datetime import timedelta
from pathlib import Path

import requests
from django.utils import timezone

from tests import s3 as s3_server
from tests import workers
from tests.conftest import database_env
from tests.paths import REPO_ROOT
from tests.reliability.conftest import FAST_ENV, MAIN, free_port, wait_for

BUCKET = "evalhub-nodes"


class Processes:
    """Processes started by this test in their own process groups (and only those
    are ever signalled), each logging to a file."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, key: str, cmd: list[str], env: dict[str, str]) -> None:
        with (self.tmp / f"{key}.log").open("ab") as out:
            self.procs[key] = subprocess.Popen(
                cmd, cwd=REPO_ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip

    def log(self, key: str) -> str:
        return (self.tmp / f"{key}.log").read_text(errors="replace")

    def alive(self, key: str) -> bool:
        return self.procs[key].poll() is None

    def signal(self, key: str, sig: int) -> None:
        """SIGTERM to the process (a Celery worker then finishes its job and stops:
        a warm shutdown), SIGKILL to its whole group (pool children too)."""
        proc = self.procs[key]
        if proc.poll() is None:
            if sig == signal.SIGKILL:
                os.killpg(proc.pid, sig)
            else:
                proc.send_signal(sig)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)

    def stop_all(self) -> None:
        """Last started, first stopped (the S3 server, started first, last)."""
        for key in reversed(list(self.procs)):
            self.signal(key, signal.SIGTERM)


class Node:
    """One machine: its own data folder, a web server, a worker, maybe beat."""

    def __init__(self, name: str, services: dict, tmp: Path):  # type: ignore[type-arg]
        self.name = name
        self.folder = tmp / f"node-{name}"
        self.folder.mkdir()
        self.procs: Processes = services["procs"]
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("EVALHUB_", "DATABASE_URL", "REDIS_URL"))
        }
        self.env = {
            **env, **database_env(), **FAST_ENV, **workers.ENV,
            **s3_server.CREDENTIALS,
            "DJANGO_SECRET_KEY": "two-nodes-share-this-secret-key-0123456789",
            "REDIS_URL": services["redis"].url,
            "EVALHUB_CACHE_PREFIX": services["prefix"],
            "EVALHUB_VAR_DIR": str(self.folder),
            "EVALHUB_STORAGE": "s3",
            "EVALHUB_S3_BUCKET": BUCKET,
            "EVALHUB_S3_ENDPOINT_URL": services["endpoint"],
            "EVALHUB_S3_REGION": "us-east-1",
        }  # fmt: skip
        self.worker_name = ""

    def web(self) -> None:
        self.procs.start(
            f"{self.name}-web",
            [sys.executable, "-m", "gunicorn", "evalhub.wsgi", "--bind",
             f"127.0.0.1:{self.port}", "--workers", "1", "--threads", "4"],
            self.env,
        )  # fmt: skip

    def worker(self) -> None:
        """A worker on every queue, with the test-only probe task type registered
        (``tests.reliability.worker_main``; BUCC scores as in production)."""
        self.worker_name = f"{self.name}-{uuid.uuid4().hex[:6]}@%h"
        command = workers.command(
            self.worker_name, workers.all_queues(), loglevel="INFO", main=MAIN
        )
        self.procs.start(f"{self.name}-worker", command, self.env)
        key = f"{self.name}-worker"
        wait_for(
            lambda: " ready." in self.procs.log(key) or not self.procs.alive(key),
            f"{key} to be ready",
            timeout=90,
        )
        assert self.procs.alive(key), self.procs.log(key)[-3000:]

    def beat(self) -> None:
        schedule = str(self.folder / "celerybeat-schedule")
        self.procs.start(
            f"{self.name}-beat",
            [sys.executable, "-m", "celery", "-A", "evalhub", "beat", "--schedule",
             schedule, "--loglevel", "WARNING"],
            self.env,
        )  # fmt: skip

    def wait_web(self) -> None:
        def up() -> bool:
            assert self.procs.alive(f"{self.name}-web"), self.procs.log(f"{self.name}-web")  # fmt: skip
            try:
                return requests.get(self.url + "/", timeout=5).status_code == 200
            except requests.ConnectionError:
                return False

        wait_for(up, f"node {self.name}'s web server", timeout=90)

    def stored_files(self) -> list[str]:
        """Every file in the node's folder but the beat schedule and the static
        files' folder (collected or served from the repository)."""
        return sorted(
            str(p.relative_to(self.folder))
            for p in self.folder.rglob("*")
            if p.is_file()
            and not p.name.startswith("celerybeat-schedule")
            and "staticfiles" not in p.parts
        )


def manifest() -> str:
    opens = (timezone.now() - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    closes = (timezone.now() + timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    files = """        files:
          source_terms: data/src.txt
          target_terms: data/tgt.txt
          gold: data/gold.tsv"""
    return f"""\
slug: nodes-2027
title: Terms on two nodes
description: Align terms.
task_type: bilingual_term_alignment
state: published
phases:
  - slug: evaluation
    name: Evaluation
    opens: {opens}
    closes: {closes}
    daily_limit: 20
    total_limit: 50
    test_sets:
      - slug: dev
        name: Development
        visibility: public
{files}
      - slug: test
        name: Test
        visibility: private
{files}
"""


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def log_in(base: str, username: str, password: str) -> requests.Session:
    session = requests.Session()
    session.get(f"{base}/accounts/login/", timeout=30)
    answer = session.post(
        f"{base}/accounts/login/",
        data={
            "login": username,
            "password": password,
            "csrfmiddlewaretoken": session.cookies["csrftoken"],
        },
        headers={"Referer": f"{base}/accounts/login/"},
        timeout=30,
    )
    assert answer.ok and "Signed in as" in answer.text, answer.text[:2000]
    return session
