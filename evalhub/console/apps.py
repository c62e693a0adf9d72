"""The organiser console: set up and run a campaign in evalhub's own pages.

A feature app: it builds on the core (tasks, phases, test sets, gold) and offers
its pages on the task's dashboard through ``competitions.signals.dashboard_links``
and its checklist through ``dashboard_panels``.
"""

from __future__ import annotations

from django.apps import AppConfig


class ConsoleConfig(AppConfig):
    name = "evalhub.console"
    label = "console"
    verbose_name = "Organiser console"

    def ready(self) -> None:
        from evalhub.console import receivers, track_links  # noqa: F401  (connect them)
