"""End to end: the organiser asks for the task's archive in the console, a real
Celery worker process (real broker, real database) writes it to the storage, the
settings page's panel (polled as htmx polls it) turns to "Ready", and the download
is the archive ``manage.py archive export`` writes."""

from __future__ import annotations

import io
import json
import time
import zipfile

import pytest
from django.core.management import call_command
from django.urls import reverse

from evalhub.competitions.models import Refresh
from evalhub.console.models import ArchiveExport

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DEADLINE_SECONDS = 120


def _members(body: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def _refreshes_done(worker) -> None:  # noqa: ANN001
    """Wait for the worker to have run the refreshes the data asked for (their rows
    are archived too): an export written before one and the command's export after
    it would differ by that refresh's rows."""
    deadline = time.monotonic() + DEADLINE_SECONDS
    while Refresh.objects.exclude(due_at=None, started_at=None).exists():
        assert worker.poll() is None, "the worker died"
        assert time.monotonic() < deadline, (
            f"refreshes pending after {DEADLINE_SECONDS} s"
        )
        time.sleep(0.5)


def test_a_worker_writes_the_archive_the_organiser_asked_for(
    client, worker, organiser, task, phase, test_set, tmp_path
):  # noqa: ANN001
    _refreshes_done(worker)
    client.force_login(organiser)
    status = reverse("console:archive-status", args=[task.slug])
    response = client.post(reverse("console:archive-export", args=[task.slug]))
    assert response.status_code == 302
    deadline = time.monotonic() + DEADLINE_SECONDS
    while "Ready" not in (panel := client.get(status).content.decode()):
        assert "Failed" not in panel, panel
        assert worker.poll() is None, "the worker died"
        assert time.monotonic() < deadline, f"no archive after {DEADLINE_SECONDS} s"
        time.sleep(0.5)
    assert ArchiveExport.objects.get(task=task).status == ArchiveExport.Status.READY

    response = client.get(reverse("console:task-archive", args=[task.slug]))
    assert response.status_code == 200
    ours = _members(b"".join(response.streaming_content))
    cli = tmp_path / "cli.zip"
    call_command("archive", "export", task.slug, str(cli), stdout=io.StringIO())
    theirs = _members(cli.read_bytes())
    assert list(ours) == list(theirs)
    assert any(name.startswith("files/") for name in ours)  # inputs and gold
    for name in ours:
        if name == "manifest.json":
            a, b = json.loads(ours[name]), json.loads(theirs[name])
            a.pop("exported_at"), b.pop("exported_at")
            assert a == b
        else:
            assert ours[name] == theirs[name], name
