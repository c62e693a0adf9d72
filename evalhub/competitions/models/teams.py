"""Teams and their registrations for a task."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from evalhub.cache import forget, kept_for_user, register_header_key
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
# run file, the failure message, the team's choices, the fact sheet, the paper) and a
# board marks the viewer's rows: the answer for every team is kept in the cache with
# the site header's per-user answers (``evalhub.cache.kept_for_user``: read in the
# same round trip) and on the user object, which Django builds afresh for each
# request. Every change of a membership (members added, removed or cleared, from
# either side, a team deleted: its membership rows go first, one signal each)
# forgets the kept answers of the users it touches, now and at commit; changes
# made in this process also make the answers kept on user objects stale at once.
_members_generation = [0]
_MEMBER_OF = Precompiled(
    lambda user_id: Team.members.through.objects.filter(user_id=user_id).values_list(
        "team_id"
    ),
    user_id=-2_000_000_003,
)
#: Seconds a user's teams are kept in the cache at most (changes forget them first).
MEMBERS_CACHE_SECONDS = 300


def member_team_ids(user: object) -> frozenset[int]:
    """The teams ``user`` (a signed-in user) is a member of."""
    kept = getattr(user, "_evalhub_member_of", None)
    if kept is None or kept[0] != _members_generation[0]:
        generation = _members_generation[0]
        pk = user.pk  # type: ignore[attr-defined]
        ids = kept_for_user(
            user,
            _members_key(pk),
            lambda: frozenset(row[0] for row in _MEMBER_OF.rows(user_id=pk)),
            MEMBERS_CACHE_SECONDS,
        )
        kept = (generation, ids)
        user._evalhub_member_of = kept  # type: ignore[attr-defined]
    return kept[1]


def _members_key(user_id: int) -> str:
    return f"teams:member-of:{user_id}"


register_header_key(_members_key)


def _forget_members(user_ids: object) -> None:
    _members_generation[0] += 1
    forget([_members_key(pk) for pk in user_ids])  # type: ignore[attr-defined]


def _row_changed(*, instance: object, **_: object) -> None:
    """A membership row saved or deleted (one member, one team)."""
    _forget_members([instance.user_id])  # type: ignore[attr-defined]


def _members_changed(
    *, instance: object, action: str, reverse: bool, pk_set: object, **_: object
) -> None:
    """``team.members.add/remove/clear`` (``reverse`` False: ``pk_set`` holds users)
    or ``user.teams...`` (True: the user is ``instance``)."""
    if action not in ("post_add", "post_remove", "pre_clear"):
        return
    if reverse:
        _forget_members([instance.pk])  # type: ignore[attr-defined]
    elif action == "pre_clear":  # the members, before they are gone
        _forget_members(list(instance.members.values_list("pk", flat=True)))  # type: ignore[attr-defined]
    else:
        _forget_members(pk_set or ())


models.signals.m2m_changed.connect(_members_changed, sender=Team.members.through)
models.signals.post_save.connect(_row_changed, sender=Team.members.through)
models.signals.post_delete.connect(_row_changed, sender=Team.members.through)
