"""The console's archive export as a worker job: the organiser asks on the settings
page (POST), the job writes the zip to the private storage, the page shows its
state (htmx polls it while it is written), the organiser downloads it, and it is
the archive ``manage.py archive export`` writes. Nobody else asks or downloads.
A worker lost mid-export is claimed again or failed by the sweeper; old archives
are deleted."""

from __future__ import annotations

import io
import json
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.core.management import call_command
from django.urls import reverse

from evalhub.competitions.services.archive import writer
from evalhub.console import jobs
from evalhub.console.models import ArchiveExport
from evalhub.console.services import archive_exports
from tests.rankings.helpers import scored

pytestmark = pytest.mark.django_db

Status = ArchiveExport.Status


@pytest.fixture
def campaign(phase, test_set, participant, team, bucc_demo):  # noqa: ANN001, ANN201
    """A task with a scored run (its file, scores, per-item results, plots)."""
    return scored(phase, participant, bucc_demo.runs[0][2]["test"], "dictionary")


def _urls(task) -> dict[str, str]:  # noqa: ANN001
    return {
        name: reverse(f"console:{name}", args=[task.slug])
        for name in (
            "task-settings",
            "archive-export",
            "archive-status",
            "task-archive",
        )
    }


def _ask(client, task, capture) -> tuple[object, list]:  # noqa: ANN001
    """POST the settings page's button; the job is sent once the request committed
    (returned, not run: the test runs the job as Celery calls it)."""
    with capture(execute=False) as sent:
        response = client.post(_urls(task)["archive-export"])
    return response, sent


def _members(body: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def _without_time(manifest: bytes) -> dict[str, object]:
    data = json.loads(manifest)
    assert data.pop("exported_at")
    return data


def test_organiser_asks_a_worker_writes_and_the_download_is_the_cli_archive(
    client, organiser, task, campaign, tmp_path, django_capture_on_commit_callbacks
):  # noqa: ANN001
    urls = _urls(task)
    client.force_login(organiser)
    page = client.get(urls["task-settings"]).content.decode()
    assert "No archive written yet" in page and urls["archive-export"] in page
    assert urls["task-archive"] not in page
    assert client.get(urls["task-archive"]).status_code == 404  # none ready

    response, sent = _ask(client, task, django_capture_on_commit_callbacks)
    assert response.status_code == 302
    assert response["Location"] == urls["task-settings"] + "#archive"
    assert len(sent) == 1
    export = ArchiveExport.objects.get(task=task)
    assert export.status == Status.QUEUED and export.requested_by == organiser
    panel = client.get(urls["archive-status"]).content.decode()
    assert "Queued" in panel and 'hx-trigger="every 2s"' in panel
    # Asking again while it is queued sends no second job.
    assert len(_ask(client, task, django_capture_on_commit_callbacks)[1]) == 0

    assert jobs.write_archive_export(export.pk) == "ready"
    assert jobs.write_archive_export(export.pk) == "not queued"  # twice: no-op
    export.refresh_from_db()
    assert export.status == Status.READY and export.size > 0
    assert export.file.startswith(f"archives/{task.pk}/")
    panel = client.get(urls["archive-status"]).content.decode()
    assert "Ready" in panel and urls["task-archive"] in panel
    assert "hx-trigger" not in panel  # no more polling
    assert "Write a new archive" in panel

    response = client.get(urls["task-archive"])
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment")
    assert f'filename="{task.slug}-archive.zip"' in response["Content-Disposition"]
    body = b"".join(response.streaming_content)
    assert len(body) == export.size

    cli = tmp_path / "cli.zip"
    call_command("archive", "export", task.slug, str(cli), stdout=io.StringIO())
    ours, theirs = _members(body), _members(cli.read_bytes())
    # The writer stamps the manifest and the zip entries with the time it ran:
    # apart from that, the same archive.
    assert list(ours) == list(theirs)
    assert _without_time(ours["manifest.json"]) == _without_time(
        theirs["manifest.json"]
    )
    assert any(name.startswith("files/") for name in ours)
    for name in ours:
        if name != "manifest.json":
            assert ours[name] == theirs[name], name


def test_the_archive_lives_in_private_storage_and_is_not_served_publicly(
    client,
    organiser,
    task,
    campaign,
    isolated_storage,
    django_capture_on_commit_callbacks,
):  # noqa: ANN001
    client.force_login(organiser)
    _ask(client, task, django_capture_on_commit_callbacks)
    export = ArchiveExport.objects.get(task=task)
    jobs.write_archive_export(export.pk)
    export.refresh_from_db()
    assert (Path(isolated_storage["root"]) / export.file).is_file()
    client.logout()
    for prefix in ("/", "/media/", "/static/", "/private/"):
        response = client.get(prefix + export.file)
        assert response.status_code == 404, prefix


@pytest.mark.parametrize("who", ["participant", "outsider"])
def test_nobody_else_asks_sees_or_downloads(
    client, organiser, task, campaign, who, request, django_capture_on_commit_callbacks
):  # noqa: ANN001
    urls = _urls(task)
    client.force_login(request.getfixturevalue(who))
    response, sent = _ask(client, task, django_capture_on_commit_callbacks)
    assert response.status_code == 404 and not sent
    assert not ArchiveExport.objects.exists()
    # Even once the organiser's archive is ready.
    client.force_login(organiser)
    _ask(client, task, django_capture_on_commit_callbacks)
    jobs.write_archive_export(ArchiveExport.objects.get().pk)
    client.force_login(request.getfixturevalue(who))
    for name in ("task-settings", "archive-status", "task-archive"):
        assert client.get(urls[name]).status_code == 404, name
    response, sent = _ask(client, task, django_capture_on_commit_callbacks)
    assert response.status_code == 404 and not sent
    assert ArchiveExport.objects.get().status == Status.READY


def test_anonymous_visitors_are_sent_to_sign_in(
    client, task, django_capture_on_commit_callbacks
):  # noqa: ANN001
    urls = _urls(task)
    response, sent = _ask(client, task, django_capture_on_commit_callbacks)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert not sent and not ArchiveExport.objects.exists()
    for name in ("archive-status", "task-archive"):
        response = client.get(urls[name])
        assert response.status_code == 302, name
        assert "/accounts/login/" in response["Location"]


def test_asking_needs_a_post_with_its_csrf_token(client, organiser, task):  # noqa: ANN001
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(organiser)
    assert strict.post(_urls(task)["archive-export"]).status_code == 403
    client.force_login(organiser)
    assert client.get(_urls(task)["archive-export"]).status_code == 405
    assert not ArchiveExport.objects.exists()


def test_a_new_archive_replaces_the_previous_one(
    client, organiser, task, campaign, django_capture_on_commit_callbacks
):  # noqa: ANN001
    from django.core.files.storage import default_storage

    client.force_login(organiser)
    _ask(client, task, django_capture_on_commit_callbacks)
    export = ArchiveExport.objects.get(task=task)
    jobs.write_archive_export(export.pk)
    export.refresh_from_db()
    first = export.file
    assert len(_ask(client, task, django_capture_on_commit_callbacks)[1]) == 1
    assert jobs.write_archive_export(export.pk) == "ready"
    export.refresh_from_db()
    assert export.status == Status.READY
    _, names = default_storage.listdir(archive_exports.folder(task.pk))
    assert [archive_exports.folder(task.pk) + n for n in names] == [export.file]
    assert first != export.file and not default_storage.exists(first)


def _killed_while_copying(monkeypatch, after_files: int = 1) -> None:  # noqa: ANN001
    """The worker process dies while the writer copies the files: the job's code
    never runs again (SystemExit is not an error the job handles)."""
    real = writer.write_archive

    def dying(*, task, target, progress):  # noqa: ANN001, ANN202
        def report(stage: str, done: int, total: int) -> None:
            progress(stage, done, total)
            if stage == writer.FILES and done >= after_files:
                raise SystemExit("killed")

        return real(task=task, target=target, progress=report)

    monkeypatch.setattr(writer, "write_archive", dying)
    monkeypatch.setattr(archive_exports, "PROGRESS_EVERY", 0.0)


def test_the_page_shows_progress_and_a_lost_worker_is_claimed_again_then_failed(
    client,
    organiser,
    task,
    campaign,
    settings,
    monkeypatch,
    django_capture_on_commit_callbacks,
):  # noqa: ANN001
    urls = _urls(task)
    client.force_login(organiser)
    _ask(client, task, django_capture_on_commit_callbacks)
    export = ArchiveExport.objects.get(task=task)
    with monkeypatch.context() as m:
        _killed_while_copying(m)
        with pytest.raises(SystemExit):
            jobs.write_archive_export(export.pk)
    export.refresh_from_db()
    assert export.status == Status.WRITING and export.attempts == 1
    assert export.stage == writer.FILES and export.progress_done == 1
    total = export.progress_total
    assert total > 1
    panel = client.get(urls["archive-status"]).content.decode()
    assert f"copying the files, 1 of {total}" in panel
    assert f'<progress max="{total}" value="1"' in panel
    assert 'hx-trigger="every 2s"' in panel
    # The job's message comes back (acks_late): the row is taken, nothing happens.
    assert jobs.write_archive_export(export.pk) == "not queued"
    stale = timedelta(seconds=settings.SCORING_HEARTBEAT_STALE_AFTER + 1)
    second = timedelta(seconds=1)

    # While its heartbeat is fresh, the sweeper leaves it alone; once it stopped
    # for SCORING_HEARTBEAT_STALE_AFTER seconds, the worker is presumed lost.
    assert export.heartbeat_at == export.started_at
    assert archive_exports.sweep(now=export.heartbeat_at + stale - second) == {
        "sent": 0, "requeued": 0, "failed": 0, "deleted": 0,
    }  # fmt: skip
    assert archive_exports.sweep(now=export.heartbeat_at + stale)["requeued"] == 1
    export.refresh_from_db()
    assert export.status == Status.QUEUED

    # Killed again: the second time it is failed, with a plain reason.
    with monkeypatch.context() as m:
        _killed_while_copying(m)
        with pytest.raises(SystemExit):
            jobs.write_archive_export(export.pk)
    export.refresh_from_db()
    assert export.attempts == settings.ARCHIVE_EXPORT_MAX_ATTEMPTS == 2
    assert archive_exports.sweep(now=export.heartbeat_at + stale)["failed"] == 1
    export.refresh_from_db()
    assert export.status == Status.FAILED
    panel = client.get(urls["archive-status"]).content.decode()
    assert "Failed" in panel and "stopped without finishing (2 times)" in panel
    assert "hx-trigger" not in panel and "Write a new archive" in panel
    assert client.get(urls["task-archive"]).status_code == 404

    # Asked again, it is written.
    assert len(_ask(client, task, django_capture_on_commit_callbacks)[1]) == 1
    assert jobs.write_archive_export(export.pk) == "ready"


def test_a_lost_worker_is_claimed_again_and_the_export_finishes(
    client,
    organiser,
    task,
    campaign,
    settings,
    monkeypatch,
    django_capture_on_commit_callbacks,
):  # noqa: ANN001
    client.force_login(organiser)
    _ask(client, task, django_capture_on_commit_callbacks)
    export = ArchiveExport.objects.get(task=task)
    with monkeypatch.context() as m:
        _killed_while_copying(m)
        with pytest.raises(SystemExit):
            jobs.write_archive_export(export.pk)
    export.refresh_from_db()
    stale = timedelta(seconds=settings.SCORING_HEARTBEAT_STALE_AFTER + 1)
    assert archive_exports.sweep(now=export.heartbeat_at + stale)["requeued"] == 1
    assert jobs.write_archive_export(export.pk) == "ready"
    export.refresh_from_db()
    assert export.status == Status.READY and export.attempts == 2
    assert client.get(_urls(task)["task-archive"]).status_code == 200


def test_an_export_over_its_time_limit_fails_with_a_plain_reason(
    client, organiser, task, campaign, monkeypatch, django_capture_on_commit_callbacks
):  # noqa: ANN001
    def too_slow(**kwargs: object) -> None:
        raise SoftTimeLimitExceeded()

    client.force_login(organiser)
    _ask(client, task, django_capture_on_commit_callbacks)
    export = ArchiveExport.objects.get(task=task)
    monkeypatch.setattr(writer, "write_archive", too_slow)
    assert jobs.write_archive_export(export.pk) == "failed"
    panel = client.get(_urls(task)["archive-status"]).content.decode()
    assert "Failed" in panel and "longer than the limit of 15 minutes" in panel
    assert "Traceback" not in panel and "SoftTimeLimitExceeded" not in panel


def test_a_lost_job_message_is_sent_again(
    client, organiser, task, settings, django_capture_on_commit_callbacks
):  # noqa: ANN001
    client.force_login(organiser)
    _ask(client, task, django_capture_on_commit_callbacks)
    export = ArchiveExport.objects.get(task=task)
    soon = export.sent_at + timedelta(seconds=settings.QUEUED_REENQUEUE_AFTER - 1)
    assert archive_exports.sweep(now=soon)["sent"] == 0
    later = export.sent_at + timedelta(seconds=settings.QUEUED_REENQUEUE_AFTER + 1)
    assert archive_exports.sweep(now=later)["sent"] == 1
    export.refresh_from_db()
    assert export.sent_at == later and export.status == Status.QUEUED


def test_old_archives_are_deleted(
    client, organiser, task, campaign, settings, django_capture_on_commit_callbacks
):  # noqa: ANN001
    from django.core.files.storage import default_storage

    urls = _urls(task)
    client.force_login(organiser)
    _ask(client, task, django_capture_on_commit_callbacks)
    export = ArchiveExport.objects.get(task=task)
    jobs.write_archive_export(export.pk)
    export.refresh_from_db()
    keep = timedelta(hours=settings.ARCHIVE_EXPORT_KEEP_HOURS)
    assert archive_exports.sweep(now=export.finished_at + keep)["deleted"] == 0
    assert default_storage.exists(export.file)
    assert jobs.sweep_archive_exports() == {
        "sent": 0, "requeued": 0, "failed": 0, "deleted": 0,
    }  # fmt: skip
    later = export.finished_at + keep + timedelta(seconds=1)
    assert archive_exports.sweep(now=later)["deleted"] == 1
    assert not default_storage.exists(export.file)
    assert not ArchiveExport.objects.exists()
    assert client.get(urls["task-archive"]).status_code == 404
    assert (
        "No archive written yet" in client.get(urls["task-settings"]).content.decode()
    )


def test_a_deleted_task_leaves_no_archive_in_storage(
    client, organiser, task, django_capture_on_commit_callbacks
):  # noqa: ANN001
    """(Site staff delete a task in the admin; its archive goes with it.)"""
    from django.core.files.storage import default_storage

    client.force_login(organiser)
    _ask(client, task, django_capture_on_commit_callbacks)
    export = ArchiveExport.objects.get(task=task)
    jobs.write_archive_export(export.pk)
    export.refresh_from_db()
    assert default_storage.exists(export.file)
    with django_capture_on_commit_callbacks(execute=True):
        task.delete()
    assert not default_storage.exists(export.file)
