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

**The owner stays**: a task's owner (``SharedTask.owner``, its creator until they hand
it over) is removed from its organisers by no one, the owner included, while owner
(``refuse_removal``; the console's Organisers page and the admin ask it).

**Who may create tasks** (``may_create_tasks``): site staff, the users granted the
right by site staff (members of the group ``GRANTED_GROUP``; ``services/creators.py``,
the page ``/staff/creators/``, ``manage.py task_creators``) and, by the setting
``EVALHUB_TASK_CREATORS``: ``staff`` (nobody else; the default), ``verified`` (every
user with a verified e-mail address, ``has_verified_email``) or ``group:<name>`` (the
members of that Django group). The console's ``/new/task/``, the bundle import (page
and organiser API), the admin's "add task", the header and the home page ask it; nobody else decides it
(``tests/competitions/test_task_creators.py`` checks the callers).

**Who organises a task** (``is_organiser``): the one answer every page, service and
app asks (``tests/competitions/test_one_is_organiser.py`` checks that nothing else
answers it).
"""

from __future__ import annotations

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from evalhub.cache import forget, kept_for_user, register_header_key
from evalhub.competitions.models import (
    Registration,
    SharedTask,
    Team,
    organised_task_ids,
)
from evalhub.env import parse_task_creators

#: The group whose members site staff granted the right to create tasks.
GRANTED_GROUP = "task creators"
HEADER_CACHE_SECONDS = 60
WHY = "organisers cannot be in a competing team (an organiser sees the hidden gold)"


def is_organiser(user: object, task: SharedTask) -> bool:
    """Whether ``user`` organises ``task``: its organisers and site superusers;
    nobody who is not signed in (the organisers' audience of the boards,
    ``visibility.ORGANISERS``, is their own: ``visibility.visible`` adds it)."""
    if not getattr(user, "is_authenticated", False):
        return False
    limit = getattr(user, "_evalhub_organising_limit", None)
    if limit is not None and task.pk not in limit:
        return False  # a credential narrower than its account (limit_organising)
    if getattr(user, "is_superuser", False):
        return True
    return task.pk in organised_task_ids(user)


def may_create_tasks(user: object) -> bool:
    """May ``user`` create tasks (``/new/task/``, a bundle, the admin's "add task")?
    Yes when :func:`creation_grounds` names a ground (site staff without a query)."""
    if not getattr(user, "is_authenticated", False) or not user.is_active:  # type: ignore[attr-defined]
        return False
    return bool(user.is_staff or creation_grounds(user))  # type: ignore[attr-defined]


def creation_grounds(user: object) -> list[str]:
    """Why ``user`` may create tasks, in plain words (empty: they may not): site
    staff; granted by site staff (a member of ``GRANTED_GROUP``); and, by
    ``settings.TASK_CREATORS``, a verified e-mail address (``verified``) or
    membership of the group it names (``group:<name>``). Anonymous and inactive
    users never. Creating a task makes its creator its organiser and owner; losing
    the right later leaves the tasks they organise as they are."""
    if not getattr(user, "is_authenticated", False) or not user.is_active:  # type: ignore[attr-defined]
        return []
    rule = parse_task_creators(settings.TASK_CREATORS, name="TASK_CREATORS")
    named = rule.removeprefix("group:") if rule.startswith("group:") else None
    groups = {GRANTED_GROUP, named} - {None}
    member = set(user.groups.filter(name__in=groups).values_list("name", flat=True))  # type: ignore[attr-defined]
    grounds = ["site staff"] if user.is_staff else []  # type: ignore[attr-defined]
    if GRANTED_GROUP in member:
        grounds.append("granted by site staff")
    if named in member and named != GRANTED_GROUP:
        grounds.append(f"member of the group {named}")
    if rule == "verified" and has_verified_email(user):
        grounds.append("verified e-mail address")
    return grounds


def creators_rule() -> str:
    """Who may create tasks on this site, in a sentence (plain text)."""
    rule = parse_task_creators(settings.TASK_CREATORS, name="TASK_CREATORS")
    who = "Site staff and the users granted the right here"
    if rule == "verified":
        who = f"{who}, and every user with a verified e-mail address,"
    elif rule.startswith("group:"):
        group = rule.removeprefix("group:")
        who = f"{who}, and the members of the group “{group}”,"
    return f"{who} may create tasks (EVALHUB_TASK_CREATORS={rule})."


def ways_to_creation_right(user: object) -> list[str]:
    """How ``user``, who may not create tasks, can get the right, in plain sentences
    (the page ``/new/task/`` shows them instead of refusing without a word)."""
    rule = parse_task_creators(settings.TASK_CREATORS, name="TASK_CREATORS")
    ways = []
    if rule == "verified":
        ways.append(
            "Verify your e-mail address (Account, in the header): on this site "
            "every user with a verified address may create tasks."
        )
    elif rule.startswith("group:"):
        ways.append(
            f"Ask to join the group “{rule.removeprefix('group:')}”: its members "
            "may create tasks."
        )
    ways.append(
        "Ask the site's staff (the people who run this evalhub) to grant you the "
        "right; you get an e-mail and a notification when they do."
    )
    return ways


def has_verified_email(user: object) -> bool:
    """``user`` has a verified e-mail address: a verified ``EmailAddress`` of
    django-allauth's account app. Without that app installed no address is verified,
    so ``EVALHUB_TASK_CREATORS=verified`` lets nobody but staff and granted users
    create tasks."""
    if not apps.is_installed("allauth.account"):
        return False
    from allauth.account.models import EmailAddress

    return EmailAddress.objects.filter(user=user, verified=True).exists()


def header_may_create_tasks(user: object) -> bool:
    """:func:`may_create_tasks` for the site header and the home page's link, kept in
    the cache per user for a minute (the header is on every page). Only the links are
    cached: the pages that create tasks ask the rule afresh."""
    if not getattr(user, "is_authenticated", False) or not user.is_active:  # type: ignore[attr-defined]
        return False
    if user.is_staff:  # type: ignore[attr-defined]
        return True
    key = _header_key(user.pk)  # type: ignore[attr-defined]
    return kept_for_user(
        user, key, lambda: may_create_tasks(user), HEADER_CACHE_SECONDS
    )


def forget_header(user_id: int) -> None:
    """The right of ``user_id`` changed: the header shows it at once."""
    forget([_header_key(user_id)])


def _header_key(user_id: int) -> str:
    return f"roles:may-create-tasks:{user_id}"


register_header_key(_header_key)


class Refused(Exception):
    """A change of who organises or competes that the rules forbid; the message says
    who and why (plain text)."""


class OrganiserCompetes(Refused):
    """The change would make an organiser of a task compete in it."""


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
    # FOR NO KEY UPDATE: the checks wait for one another, but a row that only
    # refers to the team or the user (a run being stored, whose foreign keys take
    # FOR KEY SHARE) is not blocked; FOR UPDATE deadlocked with such inserts.
    user_ids = {getattr(user, "pk", None)} - {None}
    if team is not None:
        teams = Team.objects.select_for_update(no_key=True).filter(pk=team.pk)
        list(teams.values_list("pk"))
        if with_members:
            user_ids |= set(team.members.values_list("pk", flat=True))
    if user_ids:
        users = (
            get_user_model()
            .objects.select_for_update(no_key=True)
            .filter(pk__in=user_ids)
        )
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
