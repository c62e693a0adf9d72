"""The header's kept answers (bell count, Annotate link) fail open: with Redis
unreachable a signed-in page still gets them, computed from the database."""

from __future__ import annotations

import logging

import pytest

from evalhub.annotations.services import access
from evalhub.notifications.services import notify

pytestmark = pytest.mark.django_db


@pytest.fixture
def cache_down(settings):  # noqa: ANN001, ANN201
    from tests.reliability.conftest import free_port

    settings.CACHES = {
        "default": {
            "BACKEND": "evalhub.cache.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",  # nobody listens
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }


def test_header_answers_come_from_the_database_when_redis_is_down(
    cache_down, participant, caplog
):
    notify.notify(recipients=[participant], key="k", text="t", link="/")  # forgets
    with caplog.at_level(logging.WARNING, logger="evalhub.cache"):
        assert notify.unread_count(user=participant) == 1
        assert access.header_may_annotate(participant) is False
        assert notify.mark_all_read(user=participant) == 1
        assert notify.unread_count(user=participant) == 0
    assert "cache unreachable" in caplog.text
