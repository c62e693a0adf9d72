"""Web requests keep their database connection between requests (``CONN_MAX_AGE``
for SQLite as for PostgreSQL, issue 47): a second request through the WSGI
application gunicorn serves runs on the connection the first one opened, and a
closed one is opened again by the next request."""

from __future__ import annotations

import pytest
from django.db import connection

from tests.test_wsgi_resolve import get


@pytest.mark.django_db(transaction=True)
def test_a_request_reuses_the_previous_requests_connection() -> None:
    assert get("/").startswith("200")
    kept = connection.connection
    assert kept is not None
    assert get("/").startswith("200")
    assert connection.connection is kept
    connection.close()
    assert get("/").startswith("200")
    assert connection.connection is not None
