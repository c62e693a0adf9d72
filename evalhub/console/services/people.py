"""Co-organisers, the task's owner, and announcements of a task."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction

from evalhub.competitions.models import Registration, SharedTask
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
    with transaction.atomic():
        try:
            roles.refuse_overlap(task=task, user=user)
        except roles.OrganiserCompetes as exc:
            raise Refused(str(exc)) from None
        task.organisers.add(user)
    return user


def remove_organiser(*, task: SharedTask, user_id: int, by: object) -> None:
    """Remove an organiser on ``by``'s behalf; the last one stays (a task always
    has an organiser) and so does the owner (``roles.refuse_removal``)."""
    with transaction.atomic():
        # The owner read under the lock a hand-over takes.
        task = SharedTask.objects.select_for_update().get(pk=task.pk)
        organisers = list(task.organisers.select_for_update().order_by("pk"))
        if user_id not in {u.pk for u in organisers}:
            raise Refused("This user does not organise the task.")
        if len(organisers) == 1:
            raise Refused(
                "The last organiser cannot be removed: add another organiser first."
            )
        try:
            roles.refuse_removal(task=task, user_id=user_id, acting=by)
        except roles.Refused as exc:
            raise Refused(str(exc)) from None
        task.organisers.remove(user_id)


def may_hand_over(*, task: SharedTask, user: object) -> bool:
    """The owner hands the task over (a superuser too: an owner may be gone)."""
    return task.owner_id == getattr(user, "pk", None) or bool(
        getattr(user, "is_superuser", False)
    )


def hand_over(*, task: SharedTask, by: object, user_id: int) -> object:
    """The owner makes another organiser the task's owner; the old owner stays an
    organiser. Returns the new owner."""
    with transaction.atomic():
        task = SharedTask.objects.select_for_update().get(pk=task.pk)
        if not may_hand_over(task=task, user=by):
            raise Refused("Only the task's owner can hand ownership over.")
        new_owner = task.organisers.filter(pk=user_id).first()
        if new_owner is None:
            raise Refused("Ownership goes to an organiser of the task only.")
        if new_owner.pk == task.owner_id:
            raise Refused(f"{new_owner.username} already owns this task.")
        # No board shows the owner: an update, not a save that refreshes them.
        SharedTask.objects.filter(pk=task.pk).update(owner=new_owner)
    return new_owner


def post_announcement(
    *, task: SharedTask, author: object, text: str, body: str = "", tell: bool = True
) -> Announcement:
    """Store an announcement (``body``: Markdown below its text) and, after
    commit, tell the task's registered teams (``signals.announcement_posted``),
    unless ``tell`` is false (its author mails them otherwise: a message to
    teams)."""
    announcement = Announcement.objects.create(
        task=task, author=author, text=text.strip()[:220], body=body
    )
    if not tell:
        return announcement
    transaction.on_commit(
        lambda: signals.announcement_posted.send(
            sender=Announcement, announcement_id=announcement.pk
        )
    )
    return announcement


def announcement_audience(*, task: SharedTask) -> int:
    """How many teams an announcement reaches: those whose registration to the task
    is approved (the notifications' recipients are their members)."""
    return task.registrations.filter(status=Registration.Status.APPROVED).count()


def announcement_sent(*, teams: int) -> str:
    """What the organiser is told once an announcement is stored."""
    if not teams:
        return (
            "The announcement is on the task page. No team is registered yet, so "
            "no one was notified."
        )
    return (
        f"The announcement is on the task page and sent to the {teams} registered "
        f"team{'s' if teams != 1 else ''}."
    )


#: Announcements the task page lists (the newest).
PUBLIC_ANNOUNCEMENTS = 20


def public_announcements(*, task: SharedTask) -> list[Announcement]:
    """The task's announcements for its public page, newest first (the task page
    is seen by whoever may see the task: announcements are not secret)."""
    return list(task.announcements.all()[:PUBLIC_ANNOUNCEMENTS])
