from __future__ import annotations

from django.apps import AppConfig


class TeamsConfig(AppConfig):
    name = "evalhub.teams"
    label = "teams"
    verbose_name = "Teams and invitations"
