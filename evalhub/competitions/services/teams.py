"""Teams and registrations."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from evalhub.competitions.models import Registration, SharedTask, Team


class TeamNameTaken(Exception):
    pass


def register(
    *, task: SharedTask, user: object, team: Team | None = None, new_team_name: str = ""
) -> Registration:
    """Register ``team`` (or a new team led by ``user``) for ``task``; approved at once
    unless the task requires organiser approval."""
    with transaction.atomic():
        if team is None:
            name = new_team_name.strip()
            try:
                with transaction.atomic():
                    team = Team.objects.create(name=name)
            except IntegrityError:
                raise TeamNameTaken(
                    f"A team called {name!r} already exists; choose another name."
                ) from None
            team.members.add(user)  # type: ignore[arg-type]
        status = (
            Registration.Status.PENDING
            if task.requires_approval
            else Registration.Status.APPROVED
        )
        registration, _ = Registration.objects.get_or_create(
            task=task, team=team, defaults={"status": status}
        )
    return registration
