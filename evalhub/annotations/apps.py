from __future__ import annotations

from django.apps import AppConfig


class AnnotationsConfig(AppConfig):
    name = "evalhub.annotations"
    label = "annotations"
    verbose_name = "Annotations (MT lexicon probing)"

    def ready(self) -> None:
        from evalhub.annotations import receivers  # noqa: F401  (connects signals)
        from evalhub.annotations.services import access
        from evalhub.competitions import account_links

        account_links.register_answer("may_annotate", access.header_may_annotate)
