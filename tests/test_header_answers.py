"""The site header's per-user answers (issue 47): the unread notifications, the
"Annotate" and "Create a task" links, and the viewer's teams, are each kept in
the cache per user, and a page reads all four in one round trip (``evalhub.cache.kept_for_user``; the apps
that own them register their keys). Through web requests on the run page: one
read for the three, each viewer's own answers, and a change shown at once. And
the account links are drawn from their answers alone and kept per process
(``competitions/account_links.py``). ``{% static %}`` builds each address once
per process
(``competitions/templatetags/static_kept.py``), following a change of the
static address."""

from __future__ import annotations

import re

import pytest
from django.test import override_settings
from django.urls import reverse

from evalhub.cache import RedisCache
from evalhub.competitions import account_links
from evalhub.competitions.templatetags import static_kept
from evalhub.notifications.services import notify

pytestmark = pytest.mark.django_db

HEADER_KEYS = (
    "notifications:unread:",
    "annotations:may-annotate:",
    "roles:may-create-tasks:",
    "teams:member-of:",
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


def test_the_account_links_are_drawn_from_their_answers_alone(
    client, run, participant, outsider
):  # noqa: ANN001
    """The template may read only the answers ``account_links`` gives it (a name it
    does not give would be empty on every page, and the kept drawings would not
    follow it), and a drawing is kept: a viewer's second page renders nothing."""
    from django.template.base import Lexer, TokenType
    from django.template.loader import get_template

    given = {name for name, _ in account_links.answers(participant, run.phase.task)}
    read = set()
    for name in ("base_account.html", "notifications/notification_bell.html"):
        source = get_template(name).template.source
        for token in Lexer(source).tokenize():
            if token.token_type not in (TokenType.VAR, TokenType.BLOCK):
                continue
            bits = token.split_contents()
            bits = bits if token.token_type == TokenType.VAR else bits[1:]
            for bit in bits:
                for part in re.split(r"[|=]", bit):
                    head = part.split(".")[0]
                    if re.fullmatch(r"[a-z_]+", head):
                        read.add(head)
    read -= {"n", "not", "and", "or", "as"}  # ``with n=...``, operators
    assert read and read <= given, read - given
    account_links._drawn.cache_clear()  # noqa: SLF001
    pages = {}
    for user in (participant, outsider, participant):
        client.force_login(user)
        pages.setdefault(user.username, []).append(_page(client, run))
    assert account_links._drawn.cache_info().hits >= 1  # noqa: SLF001
    mine, theirs = pages[participant.username][0], pages[outsider.username][0]
    assert f"<strong>{participant.username}</strong>" in mine
    assert f"<strong>{outsider.username}</strong>" in theirs
    assert participant.username not in theirs.split("</nav>")[0]
    # Each page's log-out form carries that request's own token, not a kept one.
    tokens = re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', mine)
    assert tokens and "account:csrf" not in mine
