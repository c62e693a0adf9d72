"""Who organises a task: the rules every path that changes organisers, teams or
registrations asks.

**Organisers never compete**: the one rule that keeps a task's organisers (who see its
hidden gold) out of every team registered for it.

Every change that could bring an organiser and a competing team together asks
``refuse_overlap`` before it is made: registering a team for a task and approving a
registration (``services/teams.py``), submitting a run (``services/runs/submit.py``; the
task's baseline runs, shown under the member-less baseline team, are not a team's),
joining a team by invitation or link (``evalhub.teams``) and adding an organiser
(``evalhub.console``), and the admin's forms for the same changes
(``admin_forms.py``). Nobody else writes the rule (``tests/competitions/
test_organisers_never_compete.py`` checks the callers).

**Who may create tasks** (``may_create_tasks``): the one rule every way of making a
task asks (the console's form, the bundle import page, the organiser API).

**The owner stays**: a task's owner (``SharedTask.owner``, its creator until they hand
it over) is removed from its organisers by no one, the owner included, while owner
(``refuse_removal``; the console's Organisers page and the admin ask it).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction

from evalhub.competitions.models import Registration, SharedTask, Team

WHY = "organisers cannot be in a competing team (an organiser sees the hidden gold)"


class Refused(Exception):
    """A change of who organises or competes that the rules forbid; the message says
    who and why (plain text)."""


class OrganiserCompetes(Refused):
    """The change would make an organiser of a task compete in it."""


def may_create_tasks(user: object) -> bool:
    """Whether ``user`` may create a task (and so become its organiser): staff
    users."""
    return bool(getattr(user, "is_authenticated", False) and user.is_staff)  # type: ignore[attr-defined]


def refuse_removal(*, task: SharedTask, user_id: int, acting: object | None) -> None:
    """Raise ``Refused`` if the organiser ``user_id`` may not be removed from
    ``task`` by ``acting`` (None: a change not made on someone's behalf): the owner
    never, while owner."""
    if task.owner_id is None or user_id != task.owner_id:
        return
    if user_id == getattr(acting, "pk", None):
        raise Refused(
            "You own this task, so you cannot be removed: hand ownership over to "
            "another organiser first."
        )
    by = "" if acting is None else " by a co-organiser"
    raise Refused(
        f"{task.owner.username} owns this task and cannot be removed{by}; only the "  # type: ignore[union-attr]
        "owner can hand ownership over (on the console's Organisers page)."
    )


def refuse_overlap(
    *,
    task: SharedTask | None = None,
    team: Team | None = None,
    user: object | None = None,
    acting: object | None = None,
) -> None:
    """Raise ``OrganiserCompetes`` if the change named by two of the three would let
    someone organise a task and be in a team registered for it:

    - ``task`` and ``team``: the team registers for the task, is approved for it or
      submits a run to it (refused when one of its members organises the task);
    - ``team`` and ``user``: the user joins the team (refused when they organise a
      task the team is registered for, whatever the registration's status);
    - ``task`` and ``user``: the user becomes an organiser of the task (refused when
      they are in a team registered for it, whatever the registration's status).

    ``acting``: who asks, so that the message can say "you".

    Called inside the transaction that makes the change, it holds that change's
    people still until the commit (the team's row, then the users' rows by primary
    key): two changes that would together make the overlap, each allowed on its own
    (adding an organiser while they register a team), wait for one another.
    """
    with transaction.atomic():
        _lock(team=team, user=user, with_members=task is not None)
        _check(task=task, team=team, user=user, acting_pk=getattr(acting, "pk", None))


def _lock(*, team: Team | None, user: object | None, with_members: bool) -> None:
    user_ids = {getattr(user, "pk", None)} - {None}
    if team is not None:
        list(Team.objects.select_for_update().filter(pk=team.pk).values_list("pk"))
        if with_members:
            user_ids |= set(team.members.values_list("pk", flat=True))
    if user_ids:
        users = get_user_model().objects.select_for_update().filter(pk__in=user_ids)
        list(users.order_by("pk").values_list("pk"))


def _check(
    *,
    task: SharedTask | None,
    team: Team | None,
    user: object | None,
    acting_pk: object,
) -> None:
    if task is not None and team is not None:
        organiser = task.organisers.filter(teams=team).order_by("username").first()
        if organiser is None:
            return
        if organiser.pk == acting_pk:
            raise OrganiserCompetes(f"You organise this task: {WHY}.")
        raise OrganiserCompetes(
            f"{organiser.username} organises this task and is a member of team "
            f"{team.name}: {WHY}."
        )
    if team is not None and user is not None:
        organised = (
            SharedTask.objects.filter(registrations__team=team, organisers=user)
            .order_by("title")
            .first()
        )
        if organised is None:
            return
        who = "You organise" if user.pk == acting_pk else f"{user.username} organises"  # type: ignore[attr-defined]
        raise OrganiserCompetes(
            f"{who} {organised.title}, for which team {team.name} is registered: {WHY}."
        )
    if task is not None and user is not None:
        registration = (
            Registration.objects.filter(task=task, team__members=user)
            .select_related("team")
            .order_by("team__name")
            .first()
        )
        if registration is None:
            return
        raise OrganiserCompetes(
            f"{user.username} is a member of team {registration.team.name} "  # type: ignore[attr-defined]
            f"registered for this task: {WHY}."
        )
    raise TypeError("refuse_overlap needs two of task, team and user")
