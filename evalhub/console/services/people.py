"""Co-organisers and announcements of a task."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction

from evalhub.competitions.models import SharedTask
from evalhub.competitions.services import roles
from evalhub.console import signals
from evalhub.console.models import Announcement


class Refused(Exception):
    """The change is not allowed; the message says why (plain text)."""


def add_organiser(*, task: SharedTask, username: str) -> object:
    """Make the user named ``username`` an organiser of ``task``. Refused for an
    unknown name and for a member of a team registered for the task (an organiser
    sees the hidden gold)."""
    user = get_user_model().objects.filter(username=username.strip()).first()
    if user is None:
        raise Refused(f"There is no user named {username.strip()!r}.")
    if task.organisers.filter(pk=user.pk).exists():
        raise Refused(f"{user.username} already organises this task.")
    try:
        roles.refuse_overlap(task=task, user=user)
    except roles.OrganiserCompetes as exc:
        raise Refused(str(exc)) from None
    task.organisers.add(user)
    return user


def remove_organiser(*, task: SharedTask, user_id: int) -> None:
    """Remove an organiser; the last one stays (a task always has an organiser)."""
    with transaction.atomic():
        organisers = list(task.organisers.select_for_update().order_by("pk"))
        if user_id not in {u.pk for u in organisers}:
            raise Refused("This user does not organise the task.")
        if len(organisers) == 1:
            raise Refused(
                "The last organiser cannot be removed: add another organiser first."
            )
        task.organisers.remove(user_id)


def post_announcement(*, task: SharedTask, author: object, text: str) -> Announcement:
    """Store an announcement and, after commit, tell the task's registered teams
    (``signals.announcement_posted``)."""
    announcement = Announcement.objects.create(
        task=task, author=author, text=text.strip()
    )
    transaction.on_commit(
        lambda: signals.announcement_posted.send(
            sender=Announcement, announcement_id=announcement.pk
        )
    )
    return announcement
