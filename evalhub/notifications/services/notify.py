"""Creating and reading notifications. Texts name the event and link to the page;
they never carry a score, a gold item or a failure message (the linked page applies
the leak rules to whoever opens it)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from evalhub.notifications.models import Notification

PAGE_SIZE = 50


def notify(*, recipients: Iterable[object], key: str, text: str, link: str) -> int:
    """One notification per recipient for the event ``key``; repeated calls with the
    same key add nothing (idempotent). Returns how many were new."""
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
        Notification(recipient_id=pk, key=key[:200], text=text[:300], link=link)
        for pk in sorted(users - existing)
    ]
    # ignore_conflicts: a concurrent delivery of the same event wins the race.
    Notification.objects.bulk_create(rows, ignore_conflicts=True)
    return len(rows)


def unread_count(*, user: object) -> int:
    if not getattr(user, "is_authenticated", False):
        return 0
    return Notification.objects.filter(recipient=user, read=False).count()


def recent(*, user: object) -> list[Notification]:
    return list(Notification.objects.filter(recipient=user)[:PAGE_SIZE])


def mark_all_read(*, user: object) -> int:
    return Notification.objects.filter(recipient=user, read=False).update(read=True)


def open_notification(*, user: object, pk: int) -> Notification | None:
    """Mark one of the user's notifications read; None if it is not theirs."""
    with transaction.atomic():
        n = Notification.objects.filter(recipient=user, pk=pk).first()
        if n is not None and not n.read:
            Notification.objects.filter(pk=n.pk).update(read=True)
    return n
