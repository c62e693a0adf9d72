from __future__ import annotations

from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "evalhub.api"
    label = "api"
    verbose_name = "API and exports"
