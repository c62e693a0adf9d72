"""The project's own wiring app: it creates the Celery app when Django starts, so the
apps' ``@shared_task`` jobs bind to it (importing the ``evalhub`` package stays light
for the ``evalhub`` console script). It sits in the wiring layer: no app imports it."""

from __future__ import annotations

from django.apps import AppConfig


class EvalhubConfig(AppConfig):
    name = "evalhub"
    label = "evalhub_project"
    verbose_name = "evalhub"

    def ready(self) -> None:
        from evalhub import celery  # noqa: F401
