from __future__ import annotations

from django.apps import AppConfig


class AnnotationsConfig(AppConfig):
    name = "evalhub.annotations"
    label = "annotations"
    verbose_name = "Annotations (MT lexicon probing)"

    def ready(self) -> None:
        from evalhub.annotations import receivers  # noqa: F401  (connects signals)
