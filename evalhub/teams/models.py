"""Invitations to join a team (``competitions.Team``).

An invitation names a user (``invitee``) or is a one-time link (``invitee`` empty:
whoever opens the link first and accepts joins). It expires, and team members can
revoke it while it is pending.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone

LIFETIME = timedelta(days=7)


def _token() -> str:
    return secrets.token_urlsafe(24)


def _expiry():  # noqa: ANN202
    return timezone.now() + LIFETIME


class Invitation(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        ACCEPTED = "accepted", "Accepted"
        DECLINED = "declined", "Declined"
        REVOKED = "revoked", "Revoked"

    TERMINAL_STATES = frozenset({Status.ACCEPTED, Status.DECLINED, Status.REVOKED})

    team = models.ForeignKey(
        "competitions.Team", on_delete=models.CASCADE, related_name="invitations"
    )
    inviter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="invitations_sent",
    )
    invitee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="invitations_received",
        help_text="Empty for a one-time invitation link",
    )
    #: What the inviter typed (a username or an email): the team page shows this,
    #: so an email invitation never tells the inviter whose account it reached.
    invited_as = models.CharField(max_length=254, blank=True)
    token = models.CharField(max_length=64, unique=True, default=_token)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(default=_expiry)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            # One pending invitation per person and team.
            models.UniqueConstraint(
                fields=["team", "invitee"],
                condition=models.Q(status="pending", invitee__isnull=False),
                name="invitation_one_pending",
            )
        ]

    def __str__(self) -> str:
        who = self.invitee or "link"
        return f"{self.team} → {who} ({self.status})"

    def get_absolute_url(self) -> str:
        return reverse("teams:invitation-detail", args=[self.pk])

    def link_url(self) -> str:
        return reverse("teams:invitation-join", args=[self.token])

    @property
    def is_link(self) -> bool:
        return self.invitee_id is None

    def is_open(self, now=None) -> bool:  # noqa: ANN001
        """Pending and not expired: it can still be accepted."""
        now = now or timezone.now()
        return self.status == self.Status.PENDING and now < self.expires_at

    @property
    def state_label(self) -> str:
        if self.status == self.Status.PENDING and not self.is_open():
            return "Expired"
        return self.get_status_display()

    @classmethod
    def decide(
        cls, pk: int, *, status: str, accepted_by: object = None, now=None
    ) -> bool:  # noqa: ANN001
        """pending (and not expired) -> ``status``; exactly one caller wins."""
        now = now or timezone.now()
        return (
            cls.objects.filter(
                pk=pk, status=cls.Status.PENDING, expires_at__gt=now
            ).update(status=status, accepted_by=accepted_by, decided_at=now)
            == 1
        )
