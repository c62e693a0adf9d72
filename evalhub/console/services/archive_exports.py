"""The console's archive export: an organiser asks for the task's archive
(``request_export``), a worker writes it to the default storage (``write``, the
``write_archive_export`` job), the settings page shows the row (queued, writing
with its progress, ready, failed) and the organiser downloads it (``open_ready``).
The web request only reads and writes the row: the archive holds every run file
and the gold, so writing it is a worker's job, under its time and memory limits.

This module is the only writer of ``ArchiveExport.status``::

    queued -> writing -> ready | failed       (the worker)
    ready | failed -> queued                  (asked again: a new archive)
    writing -> queued | failed                (the sweeper: its worker was lost)

Each change is one compare-and-set ``UPDATE``, so two workers never both write
one request and a stale worker never overwrites a newer state. The sweeper
(``sweep``, a beat job) re-sends a request whose job was lost with the broker,
claims again (or fails, after ``ARCHIVE_EXPORT_MAX_ATTEMPTS``) an export whose
worker vanished (its heartbeat stopped), and deletes archives written more than
``ARCHIVE_EXPORT_KEEP_HOURS`` ago. A new archive replaces the previous one.

The zip is written to a temporary file on the worker and then saved to the
default storage (a local folder or S3, private either way), from where the
download streams it: no web node reads a worker's disk.
"""

from __future__ import annotations

import logging
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import IO

import kombu.exceptions
import redis.exceptions
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from evalhub.competitions import queue
from evalhub.competitions.models import SharedTask
from evalhub.competitions.services.archive import writer
from evalhub.console.models import ArchiveExport

log = logging.getLogger(__name__)

WRITE_JOB = "evalhub.console.jobs.write_archive_export"
#: The last stage: the zip is written, and is being saved to the storage.
SAVING = "saving"
#: Progress is stored at most this often (seconds) while a stage runs.
PROGRESS_EVERY = 1.0

Status = ArchiveExport.Status


class _Superseded(Exception):
    """The row is no longer this worker's (the sweeper gave it to another)."""


def folder(task_id: int) -> str:
    """Where a task's archives are kept in the default storage."""
    return f"archives/{task_id}/"


def current(task: SharedTask) -> ArchiveExport | None:
    return ArchiveExport.objects.filter(task=task).first()


def expires_at(export: ArchiveExport) -> datetime | None:
    """When the sweeper deletes this archive (None: not written)."""
    if export.finished_at is None:
        return None
    return export.finished_at + timedelta(hours=settings.ARCHIVE_EXPORT_KEEP_HOURS)


def request_export(*, task: SharedTask, user: object) -> bool:
    """Ask a worker for a new archive of ``task``; False if one is being written
    already (queued or writing: that one will do)."""
    now = timezone.now()
    fields = {
        "status": Status.QUEUED,
        "requested_by": user,
        "requested_at": now,
        "sent_at": now,
        "started_at": None,
        "finished_at": None,
        "attempts": 0,
        "stage": "",
        "progress_done": 0,
        "progress_total": 0,
        "failure": "",
    }
    export, created = ArchiveExport.objects.get_or_create(task=task, defaults=fields)
    if not created:
        asked = ArchiveExport.objects.filter(pk=export.pk, status__in=export.FINAL)
        if not asked.update(**fields):
            return False
    transaction.on_commit(lambda: _send(export.pk))
    return True


def _send(export_id: int) -> None:
    """Send the job; with the broker down the row stays queued and the sweeper
    sends it later."""
    try:
        queue.job(WRITE_JOB).delay(export_id)
    except (kombu.exceptions.OperationalError, redis.exceptions.RedisError, OSError):
        log.warning("broker unavailable; the sweeper will send archive export %s", export_id)  # fmt: skip


def write(*, export_id: int) -> str:
    """Claim a queued export and write its archive (the job's body); running it
    again, or for a row not queued, does nothing."""
    started = timezone.now()
    claimed = ArchiveExport.objects.filter(pk=export_id, status=Status.QUEUED).update(
        status=Status.WRITING,
        started_at=started,
        heartbeat_at=started,
        attempts=F("attempts") + 1,
        stage=writer.ROWS,
        progress_done=0,
        progress_total=0,
    )
    if not claimed:
        return "not queued"
    export = ArchiveExport.objects.select_related("task").get(pk=export_id)
    mine = Q(pk=export_id, status=Status.WRITING, started_at=started)
    heartbeat = _Heartbeat(mine)
    heartbeat.start()
    try:
        name, size = _write_and_save(export, mine, started)
    except _Superseded:
        return "superseded"
    except SoftTimeLimitExceeded:
        minutes = settings.ARCHIVE_EXPORT_SOFT_TIME_LIMIT / 60
        _fail(mine, export.task_id, f"Writing it took longer than the limit of {minutes:g} minutes. Ask the site's administrators to raise EVALHUB_ARCHIVE_EXPORT_SOFT_TIME_LIMIT, or use manage.py archive export.")  # fmt: skip
        return "failed"
    except MemoryError:
        _fail(mine, export.task_id, "Writing it needed more memory than the limit (EVALHUB_ARCHIVE_EXPORT_MEMORY_LIMIT_MB).")  # fmt: skip
        return "failed"
    except Exception:
        log.exception("archive export %s of task %s failed", export_id, export.task_id)
        _fail(mine, export.task_id, "The worker met an error while writing it (logged for the site's administrators). Ask again; if it fails again, tell them.")  # fmt: skip
        return "failed"
    finally:
        heartbeat.stop()
    done = ArchiveExport.objects.filter(mine).update(
        status=Status.READY,
        file=name,
        size=size,
        finished_at=timezone.now(),
        started_at=None,
        stage="",
    )
    if not done:  # the sweeper gave it to another worker meanwhile
        default_storage.delete(name)
        return "superseded"
    delete_files(export.task_id, keep=name)
    return "ready"


def _write_and_save(
    export: ArchiveExport, mine: Q, started: datetime
) -> tuple[str, int]:
    report = _reporter(mine)
    with tempfile.TemporaryFile() as target:
        writer.write_archive(task=export.task, target=target, progress=report)
        size = target.seek(0, 2)
        report(SAVING, 0, 1)
        target.seek(0)
        stamp = started.strftime("%Y%m%d-%H%M%S-%f")
        name = f"{folder(export.task_id)}{export.task.slug}-{stamp}.zip"
        saved = default_storage.save(name, File(target, name=name))
    return saved, size


class _Heartbeat:
    """Refresh the row's ``heartbeat_at`` every ``SCORING_HEARTBEAT_INTERVAL``
    seconds from a daemon thread (its own database connection) while it is this
    worker's, as a scoring worker does for its run: a single large file copied
    for minutes reports no progress, but its worker is alive."""

    def __init__(self, mine: Q):
        self.mine = mine
        self.stopped = threading.Event()
        self.thread = threading.Thread(
            target=self._run, name="archive-export-heartbeat", daemon=True
        )

    def start(self) -> None:
        try:
            self.thread.start()
        except RuntimeError:  # no memory for a thread: the sweeper will notice
            log.warning("no heartbeat thread for an archive export")

    def stop(self) -> None:
        self.stopped.set()
        if self.thread.is_alive():
            self.thread.join(timeout=2)

    def _run(self) -> None:
        try:
            while not self.stopped.wait(settings.SCORING_HEARTBEAT_INTERVAL):
                try:
                    beat = ArchiveExport.objects.filter(self.mine)
                    if not beat.update(heartbeat_at=timezone.now()):
                        return  # finished, or taken back by the sweeper
                except Exception:  # noqa: BLE001 - the database may be restarting
                    log.warning("archive export heartbeat failed")
                    connection.close()
        finally:
            connection.close()


def _reporter(mine: Q) -> Callable[[str, int, int], None]:
    """Store the writer's progress on the row (at most every PROGRESS_EVERY
    seconds within a stage); stop the writer if the row is no longer its."""
    last = {"stage": "", "at": 0.0}

    def report(stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if stage == last["stage"] and now - float(last["at"]) < PROGRESS_EVERY:
            return
        last.update(stage=stage, at=now)
        stored = ArchiveExport.objects.filter(mine).update(
            stage=stage, progress_done=done, progress_total=total
        )
        if not stored:
            raise _Superseded

    return report


def _fail(row: Q, task_id: int, reason: str) -> bool:
    failed = ArchiveExport.objects.filter(row).update(
        status=Status.FAILED,
        failure=reason[:300],
        finished_at=timezone.now(),
        started_at=None,
        stage="",
        file="",
        size=0,
    )
    if failed:
        delete_files(task_id, keep="")
    return bool(failed)


def delete_files(task_id: int, *, keep: str = "") -> None:
    """Delete the task's archives in the storage but ``keep`` (the previous
    archive once a new one is ready; those left by a worker lost mid-save)."""
    try:
        _, names = default_storage.listdir(folder(task_id))
    except FileNotFoundError:
        return
    for name in names:
        path = folder(task_id) + name
        if path != keep:
            default_storage.delete(path)


def open_ready(task: SharedTask) -> tuple[IO[bytes], int] | None:
    """The task's archive, opened for reading from the storage, and its size;
    None unless one is ready."""
    export = current(task)
    if export is None or export.status != Status.READY or not export.file:
        return None
    try:
        return _stream(export.file), export.size
    except FileNotFoundError:
        return None


def _stream(name: str) -> IO[bytes]:
    """A file of the storage, read as it is sent. django-storages' S3 file reads
    the whole object into memory on first read (an archive can be gigabytes), so
    from a bucket the object's body is read instead, chunk by chunk."""
    bucket = getattr(default_storage, "bucket", None)  # the S3 backend's
    if bucket is None:
        return default_storage.open(name, "rb")
    from botocore.exceptions import ClientError

    key = default_storage._normalize_name(name)  # noqa: SLF001 - its prefix, as _open
    try:
        return bucket.Object(key).get()["Body"]
    except ClientError as exc:
        raise FileNotFoundError(name) from exc


def sweep(*, now: datetime | None = None) -> dict[str, int]:
    """The beat job's pass (see the module docstring); returns what it did."""
    now = now or timezone.now()
    done = {"sent": 0, "requeued": 0, "failed": 0, "deleted": 0}
    lost = now - timedelta(seconds=settings.QUEUED_REENQUEUE_AFTER)
    queued = ArchiveExport.objects.filter(
        Q(sent_at__isnull=True) | Q(sent_at__lt=lost), status=Status.QUEUED
    ).values_list("pk", "sent_at")
    for pk, sent_at in list(queued):
        row = ArchiveExport.objects.filter(pk=pk, status=Status.QUEUED, sent_at=sent_at)
        if row.update(sent_at=now):
            _send(pk)
            done["sent"] += 1
    # A worker lost (killed, machine gone) says nothing: its heartbeat stops. And
    # none holds an export longer than the job's hard time limit.
    stale = now - timedelta(seconds=settings.SCORING_HEARTBEAT_STALE_AFTER)
    dead = now - timedelta(seconds=settings.ARCHIVE_EXPORT_TIME_LIMIT + 30)
    writing = ArchiveExport.objects.filter(
        Q(heartbeat_at__lt=stale) | Q(started_at__lt=dead), status=Status.WRITING
    )
    for pk, task_id, started, attempts in list(
        writing.values_list("pk", "task_id", "started_at", "attempts")
    ):
        row = Q(pk=pk, status=Status.WRITING, started_at=started)
        if attempts < settings.ARCHIVE_EXPORT_MAX_ATTEMPTS:
            again = ArchiveExport.objects.filter(row).update(
                status=Status.QUEUED, started_at=None, sent_at=now, stage=""
            )
            if again:
                _send(pk)
                done["requeued"] += 1
            continue
        reason = (
            f"The worker writing it stopped without finishing ({attempts} times). "
            "Ask again; if it stops again, tell the site's administrators."
        )
        if _fail(row, task_id, reason):
            done["failed"] += 1
    expired = now - timedelta(hours=settings.ARCHIVE_EXPORT_KEEP_HOURS)
    old = ArchiveExport.objects.filter(
        status__in=ArchiveExport.FINAL, finished_at__lt=expired
    )
    for pk, task_id in list(old.values_list("pk", "task_id")):
        row = ArchiveExport.objects.filter(
            pk=pk, status__in=ArchiveExport.FINAL, finished_at__lt=expired
        )
        if row.delete()[0]:
            delete_files(task_id)
            done["deleted"] += 1
    return done
