"""Teams and their registrations for a task."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from evalhub.competitions.models.tasks import SharedTask
from evalhub.precompiled import Precompiled


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


# --- whose teams a user is in, read once per user object ----------------------------
# A run page asks "is this viewer in the run's team?" several times per request (the
# run file, the failure message, the team's choices, the fact sheet, the paper); the
# answer for every team is one query, kept on the user object, which Django builds
# afresh for each request (as ``organised_task_ids`` keeps the organised tasks).
# Changes made in this process (members added or removed, a team deleted) make every
# kept answer stale at once.
_members_generation = [0]
_MEMBER_OF = Precompiled(
    lambda user_id: Team.members.through.objects.filter(user_id=user_id).values_list(
        "team_id"
    ),
    user_id=-2_000_000_003,
)


def member_team_ids(user: object) -> frozenset[int]:
    """The teams ``user`` (a signed-in user) is a member of."""
    kept = getattr(user, "_evalhub_member_of", None)
    if kept is None or kept[0] != _members_generation[0]:
        generation = _members_generation[0]
        ids = frozenset(row[0] for row in _MEMBER_OF.rows(user_id=user.pk))  # type: ignore[attr-defined]
        kept = (generation, ids)
        user._evalhub_member_of = kept  # type: ignore[attr-defined]
    return kept[1]


def _members_changed(**_: object) -> None:
    _members_generation[0] += 1


models.signals.m2m_changed.connect(_members_changed, sender=Team.members.through)
models.signals.post_save.connect(_members_changed, sender=Team.members.through)
models.signals.post_delete.connect(_members_changed, sender=Team.members.through)
models.signals.post_delete.connect(_members_changed, sender=Team)
