"""End to end: a real Celery worker process, the real broker (REDIS_URL, or the
embedded Redis) and the real database (DATABASE_URL in CI: PostgreSQL). A participant
uploads through the web client and waits, polling with a deadline, for the row on the
leaderboard."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.urls import reverse

from evalhub.competitions.models import Submission
from tests.paths import REPO_ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DEADLINE_SECONDS = 180


def _database_env() -> dict[str, str]:
    s = connection.settings_dict
    if s["ENGINE"].endswith("sqlite3"):
        return {"EVALHUB_SQLITE_PATH": str(s["NAME"])}
    auth = s["USER"] + (f":{s['PASSWORD']}" if s.get("PASSWORD") else "")
    host = s["HOST"] or "127.0.0.1"
    port = s["PORT"] or "5432"
    return {"DATABASE_URL": f"postgres://{auth}@{host}:{port}/{s['NAME']}"}


@pytest.fixture
def worker(isolated_storage) -> Iterator[subprocess.Popen[bytes]]:  # noqa: ANN001
    env = {
        **os.environ,
        **_database_env(),
        "EVALHUB_PRIVATE_ROOT": str(isolated_storage["root"]),
        "EVALHUB_CACHE_PREFIX": isolated_storage["cache_prefix"],
    }
    name = f"e2e-{uuid.uuid4().hex[:8]}@%h"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "evalhub",
            "worker",
            "-Q",
            "scoring,default",
            "-c",
            "1",
            "--without-mingle",
            "--without-gossip",
            "--loglevel",
            "WARNING",
            "-n",
            name,
        ],
        cwd=REPO_ROOT,
        env=env,
    )
    yield proc
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()


def _wait_for(predicate, what: str):  # noqa: ANN001, ANN202
    deadline = time.monotonic() + DEADLINE_SECONDS
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"timed out after {DEADLINE_SECONDS} s waiting for {what}")


def test_upload_is_scored_by_a_worker_and_ranked(
    client, worker, participant, task, phase, team, test_set, demo_run
):
    client.force_login(participant)
    response = client.post(
        reverse("competitions:run-submit", args=[task.slug, phase.slug]),
        {
            "method_name": "dictionary",
            "run": SimpleUploadedFile("dictionary.tsv", demo_run),
        },
    )
    assert response.status_code == 302, response.content[:2000]
    sub = Submission.objects.get()
    status_url = reverse("competitions:run-status", args=[sub.pk])
    first = client.get(status_url, HTTP_HX_REQUEST="true").content.decode()
    assert "Queued" in first or "Scoring" in first or "Scored" in first

    def scored() -> bool:
        assert worker.poll() is None, "the worker died"
        sub.refresh_from_db()
        assert sub.status not in ("failed", "rejected"), sub.failure_message
        return sub.status == "scored"

    _wait_for(scored, "the run to be scored")
    final = client.get(status_url, HTTP_HX_REQUEST="true")
    assert "Scored" in final.content.decode() and final["HX-Refresh"] == "true"

    board_url = reverse("competitions:leaderboard-detail", args=[task.slug, phase.slug])
    _wait_for(
        lambda: f"/runs/{sub.pk}/" in client.get(board_url).content.decode(),
        "the leaderboard row",
    )
    run_page = client.get(
        reverse("competitions:run-detail", args=[sub.pk])
    ).content.decode()
    assert "Average precision" in run_page or "AP" in run_page
    plot = sub.evaluations.get().artefacts.first()
    svg = client.get(reverse("competitions:run-plot", args=[sub.pk, plot.pk, "svg"]))
    assert svg.status_code == 200 and svg["Content-Type"] == "image/svg+xml"
    # The worker refreshed the task-level analyses after scoring (difficulty bins).
    _wait_for(
        lambda: test_set.task_artefacts.filter(key="analysis").exists(),
        "the difficulty bins",
    )
    assert sub.attempts == 1
