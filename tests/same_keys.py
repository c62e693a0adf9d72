"""Every test that uses the database numbers its new rows from where its world
ends (a plugin of ``tests/conftest.py``), on PostgreSQL as on SQLite.

A test's transaction is rolled back at its end. On SQLite that rolls back the
table's counter too (``sqlite_sequence``), so the next test that builds the same
world gets the same primary keys. PostgreSQL's sequences are not transactional:
each test's rows used to get new keys, and whatever shows a key differed from
one test to the next: a run's label in a figure's legend ("team: method (run
#12)"), so each test drew its comparison figures again (``tests/plot_cache.py``
hands out a drawing only for an equal input). Here, after each such test has
been torn down (its transaction rolled back, or its tables flushed, and a
module's world rolled back after its last test), each sequence is set back to
follow the largest key its table still holds: the next test's rows are numbered
as the same build in any other test of that process, as on SQLite.

Nothing in a test may assume that a key it never saw is unused by another test:
the tests already ran on SQLite, where keys repeat."""

from __future__ import annotations

import functools

import pytest

#: Fixtures through which a test uses the database (pytest-django's and ours).
_DB_FIXTURES = frozenset(("db", "transactional_db", "live_server"))


@functools.cache
def _reset_sql() -> str:
    """One statement per table: its sequence set to follow its largest key."""
    from django.apps import apps
    from django.core.management.color import no_style
    from django.db import connection

    return "\n".join(
        connection.ops.sequence_reset_sql(no_style(), list(apps.get_models()))
    )


def _used_the_database(item: pytest.Item, nextitem: pytest.Item | None) -> bool:
    """The test used the test database, and it is still there: the last test's
    teardown drops it (and points the settings at the real database)."""
    if nextitem is None:
        return False
    return item.get_closest_marker("django_db") is not None or bool(
        _DB_FIXTURES & set(getattr(item, "fixturenames", ()))
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):  # noqa: ANN201
    result = yield
    if item.config.pluginmanager.hasplugin("django") and _used_the_database(
        item, nextitem
    ):
        from django.db import connection
        from pytest_django.plugin import blocking_manager_key

        if connection.vendor != "postgresql":  # SQLite: rolled back with the test
            return result
        if not connection.settings_dict["NAME"].startswith("test_"):
            return result  # never the real database
        with item.config.stash[blocking_manager_key].unblock():
            with connection.cursor() as cursor:
                cursor.execute(_reset_sql())
    return result
