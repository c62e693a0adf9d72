"""Two evalhub nodes that share nothing but the services: the test database
(PostgreSQL in CI), a private redis-server, and an S3 protocol server (moto's
standalone server from PyPI, the stand-in for S3 or MinIO). Each node has its own
data folder and runs the processes of docs/deploy.md: gunicorn and a Celery worker
(beat on node A only), with the storage settings an operator sets
(``EVALHUB_STORAGE=s3``...).

Checked, as an operator would: a bundle pushed through B's API and a run submitted
through A's API are scored by B's worker; gold replaced through B's API is read by
A's worker; every stored file is in the bucket and no node's folder holds one; a
session opened on A is valid on B; the run file, the runs' zip, a figure and the
overview-paper package come from either node; a worker SIGKILLed mid-scoring leaves
its run to the other node's worker, which scores it exactly once. Skipped without
a database server (SQLite is one machine's file; CI runs it on PostgreSQL)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
import requests
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.utils import timezone

from evalhub.competitions.models import Evaluation, SharedTask, Submission
from tests import s3 as s3_server
from tests import workers
from tests.conftest import database_env
from tests.paths import REPO_ROOT
from tests.reliability import probe
from tests.reliability.conftest import FAST_ENV, MAIN, RedisServer, free_port, wait_for
from tests.zips import zip_bytes

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

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


@pytest.fixture
def services(tmp_path, settings, monkeypatch, isolated_storage):  # noqa: ANN001, ANN201
    """moto's S3 server with an empty bucket and a private redis-server; this test
    process stores files in that bucket and caches in that Redis, as the nodes do."""
    procs = Processes(tmp_path)
    port = free_port()
    procs.start("s3", s3_server.command(port), dict(os.environ))
    endpoint = f"http://127.0.0.1:{port}"
    client = s3_server.empty_bucket(endpoint, BUCKET, monkeypatch)
    redis = RedisServer(tmp_path)
    redis.start()
    settings.STORAGES = {
        **settings.STORAGES,
        "default": s3_server.storage(endpoint, BUCKET),
    }
    settings.CACHES = {"default": {**settings.CACHES["default"], "LOCATION": redis.url}}
    from evalhub.celery import app

    old_broker = app.conf.broker_url
    app.conf.broker_url = redis.url
    app._pool = None  # noqa: SLF001 - the cached connection pools
    app.amqp._producer_pool = None  # noqa: SLF001
    yield {
        "endpoint": endpoint,
        "client": client,
        "redis": redis,
        "prefix": isolated_storage["cache_prefix"],
        "procs": procs,
    }
    procs.stop_all()
    redis.kill()
    app.conf.broker_url = old_broker
    app._pool = None  # noqa: SLF001
    app.amqp._producer_pool = None  # noqa: SLF001


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
            **env, **database_env(), **FAST_ENV, **s3_server.CREDENTIALS,
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


def _manifest() -> str:
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


def _bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def _log_in(base: str, username: str, password: str) -> requests.Session:
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


def test_two_nodes_share_only_the_services(
    services, organiser, participant, bucc_demo, tmp_path, monkeypatch
):  # noqa: ANN001
    from django.db import connection

    from evalhub.api.services import tokens
    from evalhub.competitions.services import teams
    from tasks import registry

    if connection.vendor != "postgresql":
        pytest.skip("two nodes share a database server (PostgreSQL, as CI has)")

    procs: Processes = services["procs"]
    a, b = Node("a", services, tmp_path), Node("b", services, tmp_path)
    for node in (a, b):
        node.web()
    a.beat()
    b.worker()  # only B's worker for now
    for node in (a, b):
        node.wait_web()
    organiser_token = tokens.create(user=organiser, name="nodes").secret
    participant_token = tokens.create(user=participant, name="nodes").secret
    demo = bucc_demo.test_sets[0]
    data = {
        "data/src.txt": demo.inputs["source_terms"],
        "data/tgt.txt": demo.inputs["target_terms"],
        "data/gold.tsv": demo.gold["gold"],
    }

    # 1. The task from a bundle pushed through B's API.
    answer = requests.post(
        f"{b.url}/api/bundles",
        headers=_bearer(organiser_token),
        files={
            "bundle": (
                "bundle.zip",
                zip_bytes({"task.yaml": _manifest().encode(), **data}),
            )
        },  # fmt: skip
        timeout=120,
    )
    assert answer.status_code == 201, answer.text
    task = SharedTask.objects.get(slug="nodes-2027")
    teams.register(task=task, user=participant, new_team_name="Nodes")

    # 2. A run submitted through A's API is scored by B's worker.
    run_bytes = bucc_demo.runs[0][2][demo.name]
    answer = requests.post(
        f"{a.url}/api/tasks/nodes-2027/phases/evaluation/runs",
        headers=_bearer(participant_token),
        files={"file": ("run.tsv", run_bytes)},
        data={"method_name": "dictionary"},
        timeout=120,
    )
    assert answer.status_code == 201, answer.text
    run = Submission.objects.get(pk=answer.json()["id"])

    def scored_by(node: Node, gold_version: int | None = None):  # noqa: ANN202
        def check() -> Submission | None:
            done = Submission.objects.get(pk=run.pk)
            if done.status != "scored":
                assert done.status not in ("failed", "rejected"), done.failure_message
                return None
            test = task.phases.get().test_sets.get(slug="test")
            if gold_version is not None and (
                done.evaluations.get(test_set=test).gold_version != gold_version
            ):
                return None
            return done

        done = wait_for(check, f"node {node.name}'s worker to score the run")
        assert done.worker.split("@")[0] == node.worker_name.split("@")[0]
        return done

    scored_by(b)

    # 3. Gold replaced through B's API while only A's worker runs: A reads it.
    procs.signal("b-worker", signal.SIGTERM)
    a.worker()
    test = task.phases.get().test_sets.get(slug="test")
    version = test.gold_version
    smaller = b"\n".join(demo.gold["gold"].splitlines()[40:]) + b"\n"
    gold_url = f"{b.url}/api/tasks/nodes-2027/phases/evaluation/testsets/test/gold"
    answer = requests.post(
        gold_url, headers=_bearer(organiser_token),
        files={"gold": ("gold-v2.tsv", smaller)}, timeout=120,
    )  # fmt: skip
    assert answer.status_code == 201, answer.text
    answer = requests.post(
        f"{gold_url}/{answer.json()['token']}",
        headers=_bearer(organiser_token),
        timeout=120,
    )
    assert answer.ok, answer.text
    rescored = scored_by(a, gold_version=version + 1)
    assert rescored.attempts >= 1

    # 4. Every stored file is in the bucket; no node's folder holds one.
    keys = [
        item["Key"]
        for page in services["client"]
        .get_paginator("list_objects_v2")
        .paginate(Bucket=BUCKET)
        for item in page.get("Contents", [])
    ]
    assert any(key.endswith("gold-v2.tsv") for key in keys), keys
    assert any(run.file.name == key for key in keys), (run.file.name, keys)
    assert a.stored_files() == [] and b.stored_files() == [], (
        a.stored_files(),
        b.stored_files(),
    )

    # 5. Downloads and pages from either node; a session opened on A works on B.
    # (The tests hash passwords with MD5 for speed; the nodes verify with the
    # production hashers, so the organiser's password is stored with one of them.)
    hasher = PBKDF2PasswordHasher()
    organiser.password = hasher.encode("pw-organiser-1", hasher.salt(), iterations=1000)
    organiser.save(update_fields=["password"])
    session = _log_in(a.url, "org", "pw-organiser-1")
    for node in (a, b):
        file = requests.get(
            f"{node.url}/api/tasks/nodes-2027/runs/{run.pk}/file",
            headers=_bearer(organiser_token),
            timeout=60,
        )
        assert file.status_code == 200 and file.content == run_bytes
        zipped = requests.get(
            f"{node.url}/api/tasks/nodes-2027/phases/evaluation/runs.zip",
            headers=_bearer(organiser_token),
            timeout=60,
        )
        assert zipped.status_code == 200 and zipped.content[:2] == b"PK"
        board_url = f"{node.url}/tasks/nodes-2027/evaluation/leaderboard/"

        def figures(board_url: str = board_url) -> list[str]:
            board = session.get(board_url, timeout=60)
            assert board.status_code == 200 and "Nodes" in board.text
            assert "Signed in as" in board.text  # the same session on both nodes
            return re.findall(r'src="(/[^"]+\.svg)"', board.text)

        # (The figures are drawn by the analyses refresh after the rescoring.)
        figures = wait_for(figures, f"the figures on node {node.name}'s board")
        for figure in figures[:3]:
            image = session.get(node.url + figure, timeout=60)
            assert image.status_code == 200 and b"<svg" in image.content, figure

        def package(node: Node = node) -> bool:
            got = session.get(f"{node.url}/rankings/tasks/nodes-2027/evaluation/package.zip", timeout=120)  # fmt: skip
            assert got.status_code in (200, 202), got.status_code
            return got.status_code == 200 and got.content[:2] == b"PK"

        wait_for(package, f"the package from node {node.name}")
    assert a.stored_files() == [] and b.stored_files() == []

    # 6. Both workers up; the one holding a slow run is SIGKILLed: the other node's
    # worker scores it, once.
    monkeypatch.setitem(registry.REGISTRY, probe.SLUG, probe.PATH)
    registry.get.cache_clear()
    SharedTask.objects.filter(pk=task.pk).update(task_type=probe.SLUG)
    b.worker()
    from evalhub.competitions.services.runs import submit

    slow = submit.submit_run(
        phase=task.phases.get(), user=participant, filename="slow-8.tsv",
        data=run_bytes, method_name="slow",
    )  # fmt: skip

    def claimed() -> str:
        row = Submission.objects.get(pk=slow.pk)
        return row.worker if row.status == "scoring" else ""

    holder = wait_for(claimed, "a worker to claim the slow run").split("@")[0]
    victim, survivor = (a, b) if holder == a.worker_name.split("@")[0] else (b, a)
    assert holder == victim.worker_name.split("@")[0]
    time.sleep(1.5)  # let it heartbeat once (not a synchronisation)
    procs.signal(f"{victim.name}-worker", signal.SIGKILL)

    def final() -> Submission | None:
        row = Submission.objects.get(pk=slow.pk)
        return row if row.is_terminal else None

    done = wait_for(final, "the other node to score the slow run")
    assert done.status == "scored", done.failure_message
    assert done.worker.split("@")[0] == survivor.worker_name.split("@")[0]
    assert done.attempts == 2
    assert Evaluation.objects.filter(submission=done).count() == 2  # dev and test
    assert procs.alive(f"{survivor.name}-worker")
    assert a.stored_files() == [] and b.stored_files() == []
