"""Creating and reading notifications. Texts name the event and link to the page;
they never carry a score, a gold item or a failure message (the linked page applies
the leak rules to whoever opens it)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from evalhub.cache import forget, kept_for_user, register_header_key
from evalhub.notifications import jobs
from evalhub.notifications.models import Notification

PAGE_SIZE = 50
#: The header bell's count is on every page a signed-in user sees: it is kept in the
#: cache, forgotten whenever the user's notifications change (below), and for at most
#: this many seconds in any case.
UNREAD_CACHE_SECONDS = 60


#: The longest text a notification keeps (``Notification.text``).
TEXT_LENGTH = 300


def clip(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else cut after its last whole
    word that fits, with "…": a cut never falls inside a word."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    inside_word = not text[limit - 1].isspace() and not head[-1:].isspace()
    if inside_word and " " in head:
        head = head.rsplit(" ", 1)[0]
    return head.rstrip() + "…"


def notify(
    *,
    recipients: Iterable[object],
    key: str,
    text: str,
    link: str,
    mail: bool = False,
) -> int:
    """One notification per recipient for the event ``key``; repeated calls with the
    same key add nothing (idempotent). With ``mail``, a job mails the new ones after
    commit (``services/mail.py``). Returns how many were new."""
    users = {getattr(u, "pk", u) for u in recipients}
    users.discard(None)
    if not users:
        return 0
    existing = set(
        Notification.objects.filter(recipient_id__in=users, key=key).values_list(
            "recipient_id", flat=True
        )
    )
    rows = [
        Notification(
            recipient_id=pk,
            key=key[:200],
            text=clip(text, TEXT_LENGTH),
            link=link,
            mailed=not mail,  # nothing to mail: settled at once
        )
        for pk in sorted(users - existing)
    ]
    # ignore_conflicts: a concurrent delivery of the same event wins the race.
    Notification.objects.bulk_create(rows, ignore_conflicts=True)
    _forget_unread(row.recipient_id for row in rows)
    if mail and rows:
        transaction.on_commit(
            lambda: jobs.mail_notifications.delay(key[:200]), robust=True
        )
    return len(rows)


def unread_count(*, user: object) -> int:
    if not getattr(user, "is_authenticated", False):
        return 0
    return kept_for_user(
        user,
        _unread_key(user.pk),  # type: ignore[attr-defined]
        lambda: Notification.objects.filter(recipient=user, read=False).count(),
        UNREAD_CACHE_SECONDS,
    )


def _unread_key(user_id: int) -> str:
    return f"notifications:unread:{user_id}"


register_header_key(_unread_key)


def _forget_unread(user_ids: Iterable[int]) -> None:
    forget([_unread_key(pk) for pk in user_ids])


def recent(*, user: object) -> list[Notification]:
    return list(Notification.objects.filter(recipient=user)[:PAGE_SIZE])


def mark_all_read(*, user: object) -> int:
    changed = Notification.objects.filter(recipient=user, read=False).update(read=True)
    _forget_unread([user.pk])  # type: ignore[attr-defined]
    return changed


def open_notification(*, user: object, pk: int) -> Notification | None:
    """Mark one of the user's notifications read; None if it is not theirs."""
    with transaction.atomic():
        n = Notification.objects.filter(recipient=user, pk=pk).first()
        if n is not None and not n.read:
            Notification.objects.filter(pk=n.pk).update(read=True)
            _forget_unread([n.recipient_id])
    return n
