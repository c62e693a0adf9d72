"""Site staff grant and withdraw the right to create tasks (the staff page
``/staff/creators/``, ``manage.py task_creators``).

A grant makes the user a member of the group ``roles.GRANTED_GROUP`` and records a
``CreatorChange`` (who, by whom, when); a withdrawal removes the membership and
records that too, in the same transaction. Whether a user may create tasks is
``roles.may_create_tasks``'s answer alone: this module only changes the grants.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction
from django.db.models import Q

from evalhub.competitions import signals
from evalhub.competitions.models import CreatorChange
from evalhub.competitions.services import roles

#: At most this many users answer a search.
SEARCH_LIMIT = 25
#: The page's record shows this many latest changes.
HISTORY_LIMIT = 50


@dataclass(frozen=True, slots=True)
class Creator:
    """A user as the staff page lists them: whether they were granted the right,
    every ground on which they may create tasks, and the latest grant."""

    user: object
    granted: bool
    grounds: tuple[str, ...]
    last_grant: CreatorChange | None


@dataclass(frozen=True, slots=True)
class StaffPage:
    """What the staff page shows: the rule in a sentence, a search's users, the
    users granted the right and the latest changes."""

    rule: str
    query: str
    results: list[Creator]
    granted: list[Creator]
    history: list[CreatorChange]


def staff_page(*, query: str) -> StaffPage:
    return StaffPage(
        rule=roles.creators_rule(),
        query=query.strip(),
        results=search(query),
        granted=granted(),
        history=history(),
    )


def grant(*, user: object, by: object | None) -> bool:
    """Grant ``user`` the right; False if they had been granted it already."""
    return _change(user=user, by=by, granted=True)


def withdraw(*, user: object, by: object | None) -> bool:
    """Withdraw the right granted to ``user``; False if it was not granted. Users
    who may create tasks on other grounds (site staff, the setting) keep them, and
    nobody loses the tasks they organise."""
    return _change(user=user, by=by, granted=False)


def _change(*, user: object, by: object | None, granted: bool) -> bool:
    with transaction.atomic():
        # The user's row, locked, orders two staff members changing the same user.
        model = get_user_model()
        list(model.objects.select_for_update().filter(pk=user.pk).values_list("pk"))  # type: ignore[attr-defined]
        group, _ = Group.objects.get_or_create(name=roles.GRANTED_GROUP)
        has = user.groups.filter(pk=group.pk).exists()  # type: ignore[attr-defined]
        if has == granted:
            return False
        if granted:
            user.groups.add(group)  # type: ignore[attr-defined]
        else:
            user.groups.remove(group)  # type: ignore[attr-defined]
        change = CreatorChange.objects.create(user=user, granted=granted, by=by)
        if granted:  # the user hears of it (notifications: on the site and by mail)
            transaction.on_commit(
                lambda: signals.creator_granted.send(
                    sender=CreatorChange, change_id=change.pk
                ),
                robust=True,
            )
    roles.forget_header(user.pk)  # type: ignore[attr-defined]
    return True


def search(query: str) -> list[Creator]:
    """Active users whose user name or e-mail address contains ``query`` (case
    ignored), by user name, at most ``SEARCH_LIMIT``; none for a blank query."""
    query = query.strip()
    if not query:
        return []
    users = (
        get_user_model()
        .objects.filter(is_active=True)
        .filter(Q(username__icontains=query) | Q(email__icontains=query))
        .order_by("username")[:SEARCH_LIMIT]
    )
    return _creators(list(users))


def granted() -> list[Creator]:
    """Every user granted the right, by user name."""
    users = get_user_model().objects.filter(groups__name=roles.GRANTED_GROUP)
    return _creators(list(users.order_by("username")))


def history() -> list[CreatorChange]:
    """The latest changes, newest first."""
    changes = CreatorChange.objects.select_related("user", "by")
    return list(changes[:HISTORY_LIMIT])


def _creators(users: list) -> list[Creator]:
    ids = [u.pk for u in users]
    members = set(
        get_user_model()
        .objects.filter(pk__in=ids, groups__name=roles.GRANTED_GROUP)
        .values_list("pk", flat=True)
    )
    last: dict[int, CreatorChange] = {}
    for change in CreatorChange.objects.filter(
        user__in=ids, granted=True
    ).select_related("by"):
        last.setdefault(change.user_id, change)  # newest first
    return [
        Creator(
            user=u,
            granted=u.pk in members,
            grounds=tuple(roles.creation_grounds(u)),
            last_grant=last.get(u.pk) if u.pk in members else None,
        )
        for u in users
    ]
