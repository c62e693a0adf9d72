"""The record of who granted or withdrew the right to create tasks, and when."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class CreatorChange(models.Model):
    """One grant or withdrawal of the right to create tasks, made by site staff on
    ``/staff/creators/`` or with ``manage.py task_creators``. Rows are only added,
    never changed: they are the record of who granted the right to whom and when.
    The right itself is membership of the group ``roles.GRANTED_GROUP``
    (``services/creators.py`` changes both together)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="creator_changes",
    )
    granted = models.BooleanField(help_text="True: granted; false: withdrawn.")
    #: Who made the change; empty: on the command line (or a since deleted user).
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-at", "-pk"]

    def __str__(self) -> str:
        verb = "granted to" if self.granted else "withdrawn from"
        return f"task creation {verb} user {self.user_id} at {self.at:%Y-%m-%d %H:%M}"
