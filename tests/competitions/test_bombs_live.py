"""Issue 15's attack through a real server: two zip bombs (289 kB each, three members
of 63 MB of ``[0]:[0]`` lines) posted at once to a sentence-alignment phase of a
gunicorn with two sync workers, as ``manage.py up`` serves. Before the fix both
workers parsed until the 30 s worker timeout and public pages got reset connections;
now both bombs are refused from the zip's directory and public pages keep answering
(how fast: ``bench/bombs.py``)."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import threading
import time

import pytest

from evalhub.api.services import tokens
from evalhub.client import Client
from evalhub.competitions.models import Submission
from tests.conftest import database_env
from tests.paths import REPO_ROOT
from tests.zips import zip_bomb

pytestmark = pytest.mark.django_db(transaction=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(port: int, path: str) -> tuple[int, float]:
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        return response.status, time.monotonic() - started
    finally:
        connection.close()


@pytest.fixture
def gunicorn(isolated_storage):  # noqa: ANN001, ANN201
    """The site served by gunicorn with two sync workers (30 s worker timeout)."""
    port = _free_port()
    env = {
        **os.environ,
        **database_env(),
        "EVALHUB_PRIVATE_ROOT": str(isolated_storage["root"]),
        "EVALHUB_CACHE_PREFIX": isolated_storage["cache_prefix"],
        "DJANGO_DEBUG": "false",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "evalhub.wsgi", "-b", f"127.0.0.1:{port}",
         "-w", "2", "--timeout", "30", "--log-level", "warning"],
        cwd=REPO_ROOT, env=env, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while True:
        try:
            if _get(port, "/")[0] == 200:
                break
        except OSError:
            pass
        assert proc.poll() is None and time.monotonic() < deadline, "no gunicorn"
        time.sleep(0.2)
    yield port
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=30)


def test_two_bombs_at_once_are_refused_while_public_pages_answer(
    alignment_phase, gunicorn, tmp_path
):
    phase, user, _ = alignment_phase
    secret = tokens.create(user=user, name="bomber").secret
    bomb = tmp_path / "bomb.zip"
    bomb.write_bytes(zip_bomb())
    answers: list[tuple[int, dict, float]] = []

    def post() -> None:
        started = time.monotonic()
        client = Client(f"http://127.0.0.1:{gunicorn}", secret, timeout=60)
        response = client.submit(
            task=phase.task.slug, phase=phase.slug, method_name="bomb", path=bomb
        )
        answers.append((response.status, response.payload, time.monotonic() - started))

    for _ in range(4):  # each gunicorn worker has rendered the page once
        assert _get(gunicorn, f"/tasks/{phase.task.slug}/")[0] == 200
    bombers = [threading.Thread(target=post) for _ in range(2)]
    for thread in bombers:
        thread.start()
    reads: list[tuple[int, float]] = []
    while any(t.is_alive() for t in bombers) or len(reads) < 20:
        reads.append(_get(gunicorn, f"/tasks/{phase.task.slug}/"))
    for thread in bombers:
        thread.join(timeout=60)

    # What happened, not how fast (the figures, p99 of the reads and the time
    # until each refusal, are bench/bombs.py's): both refused as bombs from the
    # zip's directory (two rejected runs), and every public read answered meanwhile.
    assert len(answers) == 2
    for status, payload, _ in answers:
        assert status == 422, payload
        assert "zip bomb" in payload["errors"][0]["message"]
    bombs = Submission.objects.filter(phase=phase, method_name="bomb")
    assert [run.status for run in bombs] == [Submission.Status.REJECTED] * 2
    assert len(reads) >= 20 and all(status == 200 for status, _ in reads)
