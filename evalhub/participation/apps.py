from __future__ import annotations

from django.apps import AppConfig


class ParticipationConfig(AppConfig):
    name = "evalhub.participation"
    label = "participation"
    verbose_name = "Data terms, profiles and the roster"

    def ready(self) -> None:
        from evalhub.participation import receivers  # noqa: F401  (connects signals)
