"""What the console stores beyond the core's rows: the organisers' announcements
and the task's archive export."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from evalhub.competitions import markdown
from evalhub.competitions.models import SharedTask


class Announcement(models.Model):
    """A message from a task's organisers to every member of its approved teams
    (delivered by the notifications app), plain text, on the task page; or a
    message to teams (``evalhub.mailings``) posted there too, with its Markdown
    ``body`` (mailed by that app, not announced again)."""

    task = models.ForeignKey(
        SharedTask, on_delete=models.CASCADE, related_name="announcements"
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    text = models.CharField(max_length=220)
    #: Optional Markdown shown below ``text`` (an organisers' message to teams
    #: posted on the task page), checked as a description is.
    body = models.TextField(blank=True, validators=[markdown.validate])
    #: ``body`` rendered and sanitised when saved: the task page prints it.
    body_html = models.TextField(blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.task.slug}: {self.text[:40]}"

    def save(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
        self.body_html = markdown.render(self.body) if self.body else ""
        super().save(*args, **kwargs)


class ArchiveExport(models.Model):
    """A task's archive asked for from the console, written by a worker
    (``services/archive_exports.py``, the only writer of ``status``). One row per
    task, the truth the settings page reads: a Redis restart or a worker killed
    mid-export loses nothing, the sweeper re-sends or finishes it. The zip lives
    in the default (private) storage, never under a public URL."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        WRITING = "writing", "Writing"
        READY = "ready", "Ready"
        FAILED = "failed", "Failed"

    FINAL = frozenset({Status.READY, Status.FAILED})

    task = models.OneToOneField(
        SharedTask, on_delete=models.CASCADE, related_name="archive_export"
    )
    status = models.CharField(max_length=16, choices=Status.choices)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    requested_at = models.DateTimeField()
    #: When its job was last sent (the sweeper re-sends one lost with the broker).
    sent_at = models.DateTimeField(null=True, blank=True)
    #: When the worker writing it now claimed it (None: none writes it).
    started_at = models.DateTimeField(null=True, blank=True)
    #: Refreshed by that worker while it writes (a worker lost is one whose
    #: heartbeat stopped: the sweeper takes the export back).
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True, db_index=True)
    #: Claims so far of this request (a worker killed mid-export: claimed again).
    attempts = models.PositiveSmallIntegerField(default=0)
    #: What the worker does now (``writer.ROWS``, ``writer.FILES``, "saving"),
    #: and how many of how many steps of it are done.
    stage = models.CharField(max_length=16, blank=True)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    #: The zip's name in the default storage ("" until one is ready).
    file = models.CharField(max_length=300, blank=True)
    size = models.PositiveBigIntegerField(default=0)
    #: Why it failed, in plain words for the organiser (no traceback).
    failure = models.CharField(max_length=300, blank=True)

    def __str__(self) -> str:
        return f"archive export of {self.task.slug}: {self.status}"

    @property
    def is_final(self) -> bool:
        return self.status in self.FINAL
