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


class TeamTooLarge(Exception):
    """A team would have more members than a task it is registered for allows
    (``SharedTask.max_team_size``); the message says which task and its cap."""


def refuse_over_cap(
    *, team: Team, adding: int = 1, task: SharedTask | None = None
) -> None:
    """The one rule of team size caps: raise ``TeamTooLarge`` when ``team`` with
    ``adding`` more members would be larger than the cap of a task it is registered
    for (unless rejected), or of ``task`` it is registering for. Invitations, joins
    and registrations ask it; call it holding the team's lock to close races."""
    size = team.members.count() + adding
    capped = SharedTask.objects.filter(max_team_size__isnull=False).filter(
        pk__in=Registration.objects.filter(team=team)
        .exclude(status=Registration.Status.REJECTED)
        .values("task")
    )
    tasks = list(capped.filter(max_team_size__lt=size).order_by("max_team_size"))
    if task is not None and task.max_team_size is not None:
        if task.max_team_size < size:
            tasks.insert(0, task)
    if not tasks:
        return
    over = tasks[0]
    if adding:
        raise TeamTooLarge(
            f"{over.title} allows at most {over.max_team_size} members per team and "
            f"team {team.name} has {size - adding}: it cannot take another member."
        )
    raise TeamTooLarge(
        f"{over.title} allows at most {over.max_team_size} members per team and "
        f"team {team.name} has {size}: it cannot register until it is smaller."
    )


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
    team is then not created either), ``TeamTooLarge`` when the team has more
    members than the task allows, and ``gates.Refused`` when a feature app says the
    user may not register yet (a profile field the task requires)."""
    gates.check(task=task, user=user, action=gates.REGISTER)
    with transaction.atomic():
        if team is None:
            team = create_team(name=new_team_name, user=user)
        roles.refuse_overlap(task=task, team=team, acting=user)
        Team.objects.select_for_update().filter(pk=team.pk).first()
        refuse_over_cap(team=team, adding=0, task=task)
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
