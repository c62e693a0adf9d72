"""What the console stores beyond the core's rows: the organisers' announcements."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from evalhub.competitions.models import SharedTask


class Announcement(models.Model):
    """A message from a task's organisers to every member of its approved teams
    (delivered by the notifications app). Plain text."""

    task = models.ForeignKey(
        SharedTask, on_delete=models.CASCADE, related_name="announcements"
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    text = models.CharField(max_length=220)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.task.slug}: {self.text[:40]}"
