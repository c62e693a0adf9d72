"""System check: every task type stored in the database is registered and importable."""

from __future__ import annotations

from django.core import checks

from tasks import registry


@checks.register()
def check_task_types(
    app_configs: object, **kwargs: object
) -> list[checks.CheckMessage]:
    errors: list[checks.CheckMessage] = []
    for slug in registry.slugs():
        try:
            registry.get(slug)
        except Exception as exc:  # noqa: BLE001 - report any import failure
            errors.append(
                checks.Error(
                    f"task type {slug!r} cannot be loaded: {exc}", id="evalhub.E001"
                )
            )
    return errors
