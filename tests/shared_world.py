"""A world built once for a module's tests (a finished campaign, its scored runs),
where building it per test cost more than the tests themselves.

``kept`` builds it inside one transaction that stays open while the module's tests
run: each test's own transaction (pytest-django's, now a savepoint in it) is rolled
back at the test's end, so every test starts from the world as built, whatever it
changes in the database; after the module's last test the world is rolled back
too. The world's files are in a folder of its own (``point_storage``: the tests'
storage points there); the build and every test have a cache namespace of their
own.

Only for tests that run in the test process: a worker or server process would not
see the uncommitted world (and on SQLite would wait for its lock). A file a test
writes stays in the world's folder (the database rows naming it are rolled back);
a test that lists the folder needs a world of its own.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class World:
    root: Path  # the storage folder of the world's files
    value: Any  # what the build returned (primary keys, bytes: never a model
    # instance a test could change in memory)


def kept(
    django_db_blocker: Any,  # noqa: ANN401 - pytest-django's blocker
    root: Path,
    build: Callable[[], Any],
) -> Iterator[World]:
    """For a module-scoped fixture (``yield from kept(...)``, after
    ``django_db_setup``): ``build()`` run once in the open transaction, with the
    storage at ``root`` and a fresh cache namespace; rolled back at the end."""
    from django.db import transaction
    from django.test import override_settings

    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            with override_settings(**storage_settings(root, fresh_cache_prefix())):
                from evalhub.competitions.services.data import taskdata

                taskdata.clear_caches()
                value = build()
        except BaseException:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)
            raise
    try:
        yield World(root=root, value=value)
    finally:
        with django_db_blocker.unblock():
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


def fresh_cache_prefix() -> str:
    return f"test-{uuid.uuid4().hex[:12]}"


def storage_settings(root: Path, cache_prefix: str) -> dict[str, dict]:  # type: ignore[type-arg]
    """STORAGES and CACHES with the uploaded files under ``root`` and the cache
    keys under ``cache_prefix``."""
    from django.conf import settings

    return {
        "STORAGES": {
            **settings.STORAGES,
            "default": {
                **settings.STORAGES["default"],
                "OPTIONS": {"location": str(root), "base_url": None},
            },
        },
        "CACHES": {
            "default": {**settings.CACHES["default"], "KEY_PREFIX": cache_prefix}
        },
    }


def point_storage(settings: Any, root: Path, cache_prefix: str) -> dict[str, Any]:  # noqa: ANN401
    """The test's storage at ``root``, its cache under ``cache_prefix`` (pytest-django's
    ``settings``, restored after the test); the process's memo of task data
    cleared. What ``isolated_storage`` returns."""
    for name, value in storage_settings(root, cache_prefix).items():
        setattr(settings, name, value)
    from evalhub.competitions.services.data import taskdata

    taskdata.clear_caches()
    return {"root": root, "cache_prefix": cache_prefix}
