"""Teams and registrations: creating a team, registering it for a task, the
organisers' approval, and the team that shows a task's baseline runs."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from evalhub.competitions import signals
from evalhub.competitions.models import Registration, SharedTask, Team
from evalhub.competitions.services import gates, roles


class TeamNameTaken(Exception):
    pass


class NotAllowed(Exception):
    """The user may not decide this registration."""


def create_team(*, name: str, user: object) -> Team:
    """A new team whose first member is ``user``. Raises TeamNameTaken."""
    name = name.strip()
    if not name:
        raise TeamNameTaken("Give the team a name.")
    try:
        with transaction.atomic():
            team = Team.objects.create(name=name[:100])
            team.members.add(user)  # type: ignore[arg-type]
    except IntegrityError:
        raise TeamNameTaken(
            f"A team called {name!r} already exists; choose another name."
        ) from None
    return team


def register(
    *, task: SharedTask, user: object, team: Team | None = None, new_team_name: str = ""
) -> Registration:
    """Register ``team`` (or a new team led by ``user``) for ``task``; approved at once
    unless the task requires organiser approval. Raises
    ``roles.OrganiserCompetes`` when a member of the team organises the task (a new
    team is then not created either), and ``gates.Refused`` when a feature app
    says the user may not register yet (a profile field the task requires)."""
    gates.check(task=task, user=user, action=gates.REGISTER)
    with transaction.atomic():
        if team is None:
            team = create_team(name=new_team_name, user=user)
        roles.refuse_overlap(task=task, team=team, acting=user)
        status = (
            Registration.Status.PENDING
            if task.requires_approval
            else Registration.Status.APPROVED
        )
        registration, _ = Registration.objects.get_or_create(
            task=task, team=team, defaults={"status": status}
        )
    return registration


def pending_registrations(*, task: SharedTask) -> tuple[Registration, ...]:
    return tuple(
        task.registrations.filter(status=Registration.Status.PENDING)
        .select_related("team")
        .prefetch_related("team__members")
        .order_by("created_at", "pk")
    )


def decide_registration(
    *, registration: Registration, user: object, approve: bool
) -> bool:
    """Approve or reject a registration (organisers of its task only). Returns False
    if it already had that status; the team is told once (``registration_decided``).
    Approving raises ``roles.OrganiserCompetes`` when a member of the team has become
    an organiser of the task since it registered."""
    if not roles.is_organiser(user, registration.task):
        raise NotAllowed("Only the task's organisers decide registrations.")
    status = Registration.Status.APPROVED if approve else Registration.Status.REJECTED
    with transaction.atomic():
        if approve:
            roles.refuse_overlap(task=registration.task, team=registration.team)
        changed = (
            Registration.objects.filter(pk=registration.pk)
            .exclude(status=status)
            .update(status=status)
        )
    registration.status = status
    if changed:
        pk = registration.pk
        transaction.on_commit(
            lambda: signals.registration_decided.send(
                sender=Registration, registration_id=pk
            )
        )
    return bool(changed)


def baseline_team(*, task: SharedTask) -> Team:
    """The member-less team a task's baseline runs are shown under (leaderboards
    mark them as baselines; they never count against anyone's limits)."""
    name = f"Baselines ({task.slug})"[:100]
    team, _ = Team.objects.get_or_create(name=name)
    if team.members.exists():
        raise TeamNameTaken(
            f"A participant team is called {name!r}; rename it in the admin first."
        )
    return team
