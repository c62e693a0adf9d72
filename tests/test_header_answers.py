"""The site header's per-user answers (issue 47): the unread notifications, the
"Annotate" and "Create a task" links are each kept in the cache per user, and a
page reads all three in one round trip (``evalhub.cache.kept_for_user``; the apps
that own them register their keys). Through web requests on the run page: one
read for the three, each viewer's own answers, and a change shown at once. And
``{% static %}`` builds each address once per process
(``competitions/templatetags/static_kept.py``), following a change of the
static address."""

from __future__ import annotations

import pytest
from django.test import override_settings
from django.urls import reverse

from evalhub.cache import RedisCache
from evalhub.competitions.templatetags import static_kept
from evalhub.notifications.services import notify

pytestmark = pytest.mark.django_db

HEADER_KEYS = (
    "notifications:unread:",
    "annotations:may-annotate:",
    "roles:may-create-tasks:",
)


@pytest.fixture
def run(submit_run, demo_run, test_set):  # noqa: ANN001, ANN201
    return submit_run(demo_run, method="method-x")


@pytest.fixture
def reads(monkeypatch):  # noqa: ANN001, ANN201
    """The header keys of each cache read, one list per read (the reads still
    reach Redis)."""
    seen: list[list[str]] = []
    real_get, real_get_many = RedisCache.get, RedisCache.get_many

    def header(keys) -> list[str]:  # noqa: ANN001
        return [k for k in keys if k.startswith(HEADER_KEYS)]

    def get(self, key, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if header([key]):
            seen.append(header([key]))
        return real_get(self, key, *args, **kwargs)

    def get_many(self, keys, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if header(keys):
            seen.append(header(keys))
        return real_get_many(self, keys, *args, **kwargs)

    monkeypatch.setattr(RedisCache, "get", get)
    monkeypatch.setattr(RedisCache, "get_many", get_many)
    return seen


def _page(client, run) -> str:  # noqa: ANN001
    response = client.get(reverse("competitions:run-detail", args=[run.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_the_header_answers_are_read_in_one_round_trip(client, run, participant, reads):  # noqa: ANN001
    client.force_login(participant)
    _page(client, run)  # the answers computed and kept
    reads.clear()
    page = _page(client, run)
    assert "Signed in as" in page
    assert len(reads) == 1
    assert sorted(reads[0]) == sorted(f"{p}{participant.pk}" for p in HEADER_KEYS)


def test_each_viewer_gets_their_own_answers_and_changes_at_once(
    client, run, participant, outsider
):  # noqa: ANN001
    for user in (participant, outsider):
        client.force_login(user)
        assert "data-unread" not in _page(client, run)
    notify.notify(recipients=[participant], key="k", text="Scored", link="/")
    client.force_login(participant)
    assert 'data-unread="1"' in _page(client, run)
    client.force_login(outsider)
    assert "data-unread" not in _page(client, run)
    client.force_login(participant)
    assert 'data-unread="1"' in _page(client, run)
    client.post(reverse("notifications:notification-read-all"))
    assert "data-unread" not in _page(client, run)


def test_static_addresses_are_built_once_and_follow_the_setting(client, run):  # noqa: ANN001
    static_kept._address.cache_clear()  # noqa: SLF001
    page = _page(client, run)
    assert 'href="/static/evalhub.css"' in page
    assert 'src="/static/evalhub.js"' in page
    built = static_kept._address.cache_info().misses  # noqa: SLF001
    assert built >= 3
    assert _page(client, run) == page
    assert static_kept._address.cache_info().misses == built  # noqa: SLF001
    with override_settings(STATIC_URL="/assets/"):
        assert 'href="/assets/evalhub.css"' in _page(client, run)
    assert 'href="/static/evalhub.css"' in _page(client, run)
