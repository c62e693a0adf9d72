"""The PostgreSQL backend's health checks (``evalhub/postgresql``): a kept
connection that answered the last request's queries is not pinged before the next
request's first query; one quiet for longer than ``HEALTH_CHECK_AFTER`` is, and a
broken one is replaced. Runs against PostgreSQL only (CI sets ``DATABASE_URL``)."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the PostgreSQL backend"
)


@pytest.fixture
def kept(db):  # noqa: ANN001, ANN201
    """A second connection to the test database as the site configures one
    (kept between requests, health checks on), its pings counted."""
    from evalhub.postgresql.base import DatabaseWrapper

    assert settings.DATABASES["default"]["ENGINE"] == "evalhub.postgresql"
    wrapper = DatabaseWrapper(
        {**connection.settings_dict, "CONN_MAX_AGE": 60, "CONN_HEALTH_CHECKS": True},
        alias="health-checks",
    )
    pings = []
    real = wrapper.is_usable

    def is_usable() -> bool:
        pings.append(1)
        return real()

    wrapper.is_usable = is_usable
    yield wrapper, pings
    wrapper.close()


def request(wrapper) -> None:  # noqa: ANN001
    """What Django does around a request that runs a query."""
    wrapper.close_if_unusable_or_obsolete()  # request_started
    with wrapper.cursor() as cursor:
        cursor.execute("SELECT 1")
    wrapper.close_if_unusable_or_obsolete()  # request_finished


def test_busy_connection_is_not_pinged_quiet_one_is(kept) -> None:  # noqa: ANN001
    wrapper, pings = kept
    request(wrapper)  # opens the connection: new connections are not pinged
    request(wrapper)
    request(wrapper)
    assert pings == []
    wrapper._alive_at -= 3600  # noqa: SLF001 - quiet for an hour
    request(wrapper)
    assert pings == [1]
    request(wrapper)  # the ping and the queries showed it alive
    assert pings == [1]


def test_broken_quiet_connection_is_replaced(kept) -> None:  # noqa: ANN001
    wrapper, pings = kept
    request(wrapper)
    old = wrapper.connection
    with connection.cursor() as cursor:  # the server drops the kept connection
        cursor.execute("SELECT pg_terminate_backend(%s)", [old.info.backend_pid])
    wrapper._alive_at -= 3600  # noqa: SLF001
    request(wrapper)  # pinged, found dead, reconnected: the query works
    assert pings == [1]
    assert wrapper.connection is not old
