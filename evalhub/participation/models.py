"""A task's data terms (versioned) and licence, who accepted which version, and the
participants' optional profile (affiliation, country)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from evalhub.competitions.models import SharedTask, Team


class DataSettings(models.Model):
    """The organisers' choices about a task's data (one row per task, made when
    first saved): its licence, and whether a profile is required to register."""

    task = models.OneToOneField(
        SharedTask, on_delete=models.CASCADE, related_name="data_settings"
    )
    #: An SPDX licence identifier (``CC-BY-4.0``), ``custom`` (the terms say it),
    #: or "" (none named).
    licence = models.CharField(max_length=64, blank=True)
    #: Affiliation and country are required before a team registers.
    require_profile = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"data settings of {self.task}"


class TermsVersion(models.Model):
    """One version of a task's data terms (Markdown). The newest is in force; an
    empty text means the task has no terms (its files are open)."""

    task = models.ForeignKey(
        SharedTask, on_delete=models.CASCADE, related_name="terms_versions"
    )
    number = models.PositiveIntegerField()
    text = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )

    class Meta:
        ordering = ["task", "-number"]
        constraints = [
            models.UniqueConstraint(
                fields=["task", "number"], name="terms_version_unique"
            )
        ]

    def __str__(self) -> str:
        return f"terms v{self.number} of {self.task}"


class Acceptance(models.Model):
    """A participant accepted a version of the terms (and the team they were in
    for the task then, if any)."""

    version = models.ForeignKey(
        TermsVersion, on_delete=models.CASCADE, related_name="acceptances"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="terms_acceptances",
    )
    team = models.ForeignKey(Team, null=True, blank=True, on_delete=models.SET_NULL)
    accepted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["version", "user"], name="terms_acceptance_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} accepted {self.version}"


class Profile(models.Model):
    """What a participant tells organisers about themselves (both optional, unless
    a task requires them before registering)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="participant_profile",
    )
    affiliation = models.CharField(max_length=200, blank=True)
    country = models.CharField(max_length=100, blank=True)

    def __str__(self) -> str:
        return f"profile of {self.user}"
