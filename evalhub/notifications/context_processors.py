from __future__ import annotations

from django.http import HttpRequest

from evalhub.notifications.services import notify


def unread(request: HttpRequest) -> dict[str, object]:
    """The header bell's count, computed only when a template shows it."""
    user = getattr(request, "user", None)
    return {"unread_notifications": lambda: notify.unread_count(user=user)}
