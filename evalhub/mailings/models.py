"""An organisers' message to teams, and its delivery to each recipient.

The ``Delivery`` rows are the truth about sending: one per recipient and message
(a unique constraint), written when the message is stored; the worker claims each
(a committed write that keeps other jobs off it), mails it, then moves it from
``pending`` to ``sent`` (``services/sending.py``, the only writer of ``status``),
so a job delivered twice, or sent again to retry a failed send, never mails anyone
twice."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from evalhub.competitions import markdown
from evalhub.competitions.models import SharedTask, Team


class Message(models.Model):
    task = models.ForeignKey(
        SharedTask, on_delete=models.CASCADE, related_name="team_messages"
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    subject = models.CharField(max_length=150)
    #: Markdown, checked as a task description is (``competitions/markdown.py``).
    body = models.TextField(validators=[markdown.validate])
    #: ``body`` rendered and sanitised when the message is stored.
    body_html = models.TextField(editable=False)
    #: The recipient filter's key (``recipients.TeamFilter``) and, as the
    #: organiser read it then, its label (with the team's name for one team).
    audience = models.CharField(max_length=50)
    audience_label = models.CharField(max_length=250)
    #: The one team written to (None: every team the filter selected).
    team = models.ForeignKey(
        Team, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    teams_count = models.PositiveIntegerField(default=0)
    #: The members addressed (one ``Delivery`` each): the message's recipients.
    recipients = models.PositiveIntegerField(default=0)
    #: Also posted on the task page as an announcement.
    announced = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.task.slug}: {self.subject[:40]}"


class Delivery(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Waiting to be sent"
        SENT = "sent", "Sent"
        #: Not mailed by choice or for want of an address (``reason`` says which).
        SKIPPED = "skipped", "Not sent"
        #: Every attempt failed (``reason`` holds the last error).
        FAILED = "failed", "Failed"

    FINAL = frozenset({Status.SENT, Status.SKIPPED, Status.FAILED})

    message = models.ForeignKey(
        Message, on_delete=models.CASCADE, related_name="deliveries"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    #: The team through which the user is a recipient (its name, should the team
    #: go away).
    team_name = models.CharField(max_length=100)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    reason = models.CharField(max_length=300, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    #: After a failed send: when it is tried again (beat's ``resume_messages``).
    retry_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["team_name", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["message", "user"], name="delivery_once_per_recipient"
            )
        ]

    def __str__(self) -> str:
        return f"message {self.message_id} to user {self.user_id}: {self.status}"
