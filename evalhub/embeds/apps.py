from __future__ import annotations

from django.apps import AppConfig


class EmbedsConfig(AppConfig):
    name = "evalhub.embeds"
    label = "embeds"
    verbose_name = "Embedded boards and badges"

    def ready(self) -> None:
        from evalhub.embeds import receivers  # noqa: F401  (connects signals)
