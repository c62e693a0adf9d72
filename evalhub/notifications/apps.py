from __future__ import annotations

from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "evalhub.notifications"
    label = "notifications"
    verbose_name = "On-site notifications"

    def ready(self) -> None:
        from evalhub.competitions import account_links
        from evalhub.notifications import receivers  # noqa: F401  (connects signals)
        from evalhub.notifications.services import notify

        account_links.register_answer(
            "unread_notifications", lambda user: notify.unread_count(user=user)
        )
