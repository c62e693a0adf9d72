"""The demo seed leaves exactly one documented login: ``organiser``. The demo teams'
members (morpho, rooters, dice, team-*, demo-team-*) only own the demo runs."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from evalhub.competitions.models import Submission, Team
from evalhub.competitions.services.data import demo

pytestmark = pytest.mark.django_db


def _login(client, username: str) -> int:  # noqa: ANN001
    response = client.post(
        "/accounts/login/", {"login": username, "password": demo.DEMO_PASSWORD}
    )
    return response.status_code


def test_only_the_organiser_logs_in_with_the_documented_password(
    isolated_storage, client
):
    demo.seed_demo()
    members = list(
        get_user_model().objects.filter(teams__in=Team.objects.all()).distinct()
    )
    names = {m.username for m in members}
    assert {"morpho", "rooters", "dice", "team-alpha", "demo-team-a"} <= names
    assert Submission.objects.filter(submitter__in=members).exists()
    for member in members:
        assert not member.has_usable_password(), member.username
        assert not client.login(username=member.username, password=demo.DEMO_PASSWORD)
        assert _login(client, member.username) == 200  # the form again, not a redirect
        assert "_auth_user_id" not in client.session
    assert client.login(username="organiser", password=demo.DEMO_PASSWORD)


def test_reseeding_an_older_database_takes_the_members_password(
    isolated_storage, client
):
    old = get_user_model().objects.create_user(
        "team-alpha", password=demo.DEMO_PASSWORD
    )
    demo.seed_demo(slugs=["term_extraction"])
    assert client.login(username="team-alpha", password=demo.DEMO_PASSWORD) is False
    old.refresh_from_db()
    assert not old.has_usable_password()
    demo.seed_demo(slugs=["term_extraction"])  # nothing new to create: still locked
    assert client.login(username="organiser", password=demo.DEMO_PASSWORD)
