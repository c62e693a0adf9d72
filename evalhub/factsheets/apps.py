from __future__ import annotations

from django.apps import AppConfig


class FactsheetsConfig(AppConfig):
    name = "evalhub.factsheets"
    label = "factsheets"
    verbose_name = "Fact sheets and paper links"

    def ready(self) -> None:
        from evalhub.factsheets import receivers  # noqa: F401  (connects signals)
