"""The console's archive export on S3-compatible storage (moto's standalone S3
server from PyPI, the stand-in for S3 or MinIO, as in tests/deploy): the job
writes the zip into the bucket, never into a folder a web node would have to
read; the download streams it from the bucket; a new one replaces it there and
the sweeper deletes it there."""

from __future__ import annotations

import io
import os
import subprocess
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from evalhub.console import jobs
from evalhub.console.models import ArchiveExport
from evalhub.console.services import archive_exports
from tests import s3 as s3_server
from tests.reliability.conftest import free_port

pytestmark = pytest.mark.django_db

BUCKET = "evalhub-exports"


@pytest.fixture
def s3(settings, monkeypatch, isolated_storage):  # noqa: ANN001, ANN201
    """An empty bucket on moto's S3 server, the default storage (request it
    before ``task``, so the task's files are stored there too)."""
    port = free_port()
    proc = subprocess.Popen(
        s3_server.command(port),
        env=dict(os.environ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    try:
        client = s3_server.empty_bucket(endpoint, BUCKET, monkeypatch)
        settings.STORAGES = {
            **settings.STORAGES,
            "default": s3_server.storage(endpoint, BUCKET),
        }
        yield client
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _keys(client, prefix: str) -> list[str]:  # noqa: ANN001
    listed = client.list_objects_v2(Bucket=BUCKET, Prefix=prefix)
    return sorted(item["Key"] for item in listed.get("Contents", []))


def test_the_export_is_written_to_the_bucket_and_downloaded_from_it(
    s3,
    client,
    organiser,
    task,
    phase,
    test_set,
    isolated_storage,
    settings,
    tmp_path,
    monkeypatch,
    django_capture_on_commit_callbacks,
):  # noqa: ANN001
    client.force_login(organiser)
    ask = reverse("console:archive-export", args=[task.slug])
    with django_capture_on_commit_callbacks(execute=False):
        assert client.post(ask).status_code == 302
    export = ArchiveExport.objects.get(task=task)
    assert jobs.write_archive_export(export.pk) == "ready"
    export.refresh_from_db()
    folder = archive_exports.folder(task.pk)
    assert _keys(s3, folder) == [export.file]
    # Nothing in a local folder: a web node on another machine reads the bucket.
    assert not list(Path(isolated_storage["root"]).rglob("*.zip"))

    # Streamed from the bucket as it is sent: django-storages' S3 file, which
    # reads the whole object into the web process's memory first, is not used.
    from storages.backends.s3 import S3File

    def whole_object_read(self) -> None:  # noqa: ANN001
        raise AssertionError("the archive was read whole into memory")

    with monkeypatch.context() as m:
        m.setattr(S3File, "file", property(whole_object_read))
        response = client.get(reverse("console:task-archive", args=[task.slug]))
        assert response.status_code == 200
        assert int(response["Content-Length"]) == export.size
        body = b"".join(response.streaming_content)
    assert len(body) == export.size
    cli = tmp_path / "cli.zip"
    call_command("archive", "export", task.slug, str(cli), stdout=io.StringIO())
    with zipfile.ZipFile(io.BytesIO(body)) as ours, zipfile.ZipFile(cli) as theirs:
        assert ours.namelist() == theirs.namelist()
        gold = [n for n in ours.namelist() if n.startswith("files/")]
        assert gold and all(ours.read(n) == theirs.read(n) for n in gold)

    # A new export replaces it in the bucket; the sweeper deletes it later.
    with django_capture_on_commit_callbacks(execute=False):
        client.post(ask)
    assert jobs.write_archive_export(export.pk) == "ready"
    export.refresh_from_db()
    assert _keys(s3, folder) == [export.file]
    keep = timedelta(hours=settings.ARCHIVE_EXPORT_KEEP_HOURS, seconds=1)
    assert archive_exports.sweep(now=export.finished_at + keep)["deleted"] == 1
    assert _keys(s3, folder) == []
