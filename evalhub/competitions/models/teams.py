"""Teams and their registrations for a task."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from evalhub.competitions.models.tasks import SharedTask


class Team(models.Model):
    name = models.CharField(max_length=100, unique=True)
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="teams")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class Registration(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Awaiting approval"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"

    task = models.ForeignKey(
        SharedTask, on_delete=models.CASCADE, related_name="registrations"
    )
    team = models.ForeignKey(
        Team, on_delete=models.CASCADE, related_name="registrations"
    )
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["task", "team"], name="registration_unique")
        ]

    def __str__(self) -> str:
        return f"{self.team} @ {self.task}"
