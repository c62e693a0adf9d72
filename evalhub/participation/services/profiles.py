"""A participant's optional profile (affiliation, country), which a task may require
before a team registers (``refusal``, asked through ``signals.participation_check``)."""

from __future__ import annotations

from django.urls import reverse

from evalhub.competitions.models import SharedTask
from evalhub.competitions.services import gates
from evalhub.participation.models import DataSettings, Profile


def of(user: object) -> Profile:
    """The user's profile (unsaved and empty until they save it)."""
    return Profile.objects.filter(user=user).first() or Profile(user=user)  # type: ignore[misc]


def save(*, user: object, affiliation: str, country: str) -> Profile:
    profile, _ = Profile.objects.update_or_create(
        user=user,
        defaults={
            "affiliation": affiliation.strip()[:200],
            "country": country.strip()[:100],
        },
    )
    return profile


def missing(user: object) -> list[str]:
    """The profile fields ``user`` has not filled in."""
    profile = of(user)
    return [
        label
        for label, value in (
            ("affiliation", profile.affiliation),
            ("country", profile.country),
        )
        if not value.strip()
    ]


def refusal(*, task: SharedTask, user: object, action: str) -> gates.Refusal | None:
    """A task that requires a profile refuses a team's registration until the
    registering user's affiliation and country are filled in."""
    if action != gates.REGISTER or not getattr(user, "is_authenticated", False):
        return None
    if not DataSettings.objects.filter(task=task, require_profile=True).exists():
        return None
    gaps = missing(user)
    if not gaps:
        return None
    return gates.Refusal(
        f"{task.title} asks for your {' and '.join(gaps)} before you register: "
        "fill them in on your profile.",
        reverse("participation:profile"),
    )
