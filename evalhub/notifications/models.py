"""Notifications: a short text and a link for one user, on the site; those of a few
events (announcements, private results revealed, gold released) also by e-mail,
unless the user opted out."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class Notification(models.Model):
    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="notifications",
    )
    text = models.CharField(max_length=300)
    link = models.CharField(max_length=500, blank=True)
    #: What the notification is about (e.g. ``run:12:scored:<finished_at>``): one
    #: event notifies each recipient once, however often its signal is delivered.
    key = models.CharField(max_length=200)
    created = models.DateTimeField(default=timezone.now, db_index=True)
    read = models.BooleanField(default=False)
    #: Its e-mail was taken care of (sent, or not to be sent): events mailed once.
    mailed = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["recipient", "key"], name="notification_once"
            )
        ]
        indexes = [models.Index(fields=["recipient", "read"])]

    def __str__(self) -> str:
        return f"{self.recipient}: {self.text}"


class MailOptOut(models.Model):
    """A user who wants no notification e-mails; the site's notifications stay."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.user}: no notification e-mails"
