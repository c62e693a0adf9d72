from __future__ import annotations

from django.apps import AppConfig


class RankingsConfig(AppConfig):
    name = "evalhub.rankings"
    label = "rankings"
    verbose_name = "Rankings (confidence intervals, significance, Ladder)"

    def ready(self) -> None:
        from evalhub.rankings import receivers

        receivers.connect()
