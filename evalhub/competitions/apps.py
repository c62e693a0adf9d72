from __future__ import annotations

from django.apps import AppConfig


class CompetitionsConfig(AppConfig):
    name = "evalhub.competitions"
    label = "competitions"
    verbose_name = "Shared tasks"

    def ready(self) -> None:
        from evalhub.competitions import (
            checks,  # noqa: F401  (registers system checks)
            receivers,
        )

        receivers.connect()
