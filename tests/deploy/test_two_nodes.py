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
import time

import pytest
import requests
from django.contrib.auth.hashers import PBKDF2PasswordHasher

from evalhub.competitions.models import Evaluation, SharedTask, Submission
from tests import s3 as s3_server
from tests.deploy.nodes import BUCKET, Node, Processes, bearer, log_in, manifest
from tests.reliability import probe
from tests.reliability.conftest import RedisServer, free_port, wait_for
from tests.zips import zip_bytes

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


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
    organiser_token = tokens.create(
        user=organiser, name="nodes", scope="organise"
    ).secret
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
        headers=bearer(organiser_token),
        files={
            "bundle": (
                "bundle.zip",
                zip_bytes({"task.yaml": manifest().encode(), **data}),
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
        headers=bearer(participant_token),
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
    gold_url = f"{b.url}/api/tasks/nodes-2027/phases/evaluation/testsets/test/test-data"
    answer = requests.post(
        gold_url, headers=bearer(organiser_token),
        files={"gold": ("gold-v2.tsv", smaller)}, timeout=120,
    )  # fmt: skip
    assert answer.status_code == 201, answer.text
    answer = requests.post(
        f"{gold_url}/{answer.json()['token']}",
        headers=bearer(organiser_token),
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
    session = log_in(a.url, "org", "pw-organiser-1")
    for node in (a, b):
        file = requests.get(
            f"{node.url}/api/tasks/nodes-2027/runs/{run.pk}/file",
            headers=bearer(organiser_token),
            timeout=60,
        )
        assert file.status_code == 200 and file.content == run_bytes
        zipped = requests.get(
            f"{node.url}/api/tasks/nodes-2027/phases/evaluation/runs.zip",
            headers=bearer(organiser_token),
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
