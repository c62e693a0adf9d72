from __future__ import annotations

from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "evalhub.notifications"
    label = "notifications"
    verbose_name = "On-site notifications"

    def ready(self) -> None:
        from evalhub.notifications import receivers  # noqa: F401  (connects signals)
