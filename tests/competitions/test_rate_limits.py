"""Limits that hold (issue 15): login throttling keyed on the name Django
authenticates (NFKC) and on the client address across names; API submissions
counted per token user, not per client address. Real Redis, real views."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from evalhub.api.services import tokens as token_service
from evalhub.competitions import ratelimit
from evalhub.competitions.models import Submission
from evalhub.competitions.services import teams

pytestmark = pytest.mark.django_db

FULLWIDTH_ALICE = "\uff41lice"  # "ａlice": NFKC makes it "alice"


def test_normalised_username_is_what_django_authenticates():
    from django.contrib.auth.forms import UsernameField

    for raw in (FULLWIDTH_ALICE, " alice ", "ALICE", "alice"):
        assert ratelimit.normalised_username(raw) == "alice"
        assert UsernameField().clean(raw).casefold() == "alice"


def test_fullwidth_name_shares_the_limit_of_the_plain_name(
    client, settings, participant, isolated_storage
):
    settings.LOGIN_RATE = "3/600"
    url = reverse("account_login")
    for _ in range(3):
        assert client.post(url, {"login": "alice", "password": "x"}).status_code
    # The fullwidth spelling logs in as alice: it must not get a fresh budget.
    r = client.post(url, {"login": FULLWIDTH_ALICE, "password": "pw-alice-1"})
    assert r.status_code == 429
    assert "_auth_user_id" not in client.session


def test_one_password_across_many_names_is_limited_per_address(
    client, settings, participant, outsider, isolated_storage
):
    settings.LOGIN_RATE = "3/600"
    settings.LOGIN_ADDRESS_RATE = "5/600"
    url = reverse("account_login")
    codes = [
        client.post(url, {"login": f"user{i}", "password": "123456"}).status_code
        for i in range(5)
    ]
    assert codes == [200] * 5
    r = client.post(url, {"login": "mallory", "password": "pw-mallory-1"})
    assert r.status_code == 429 and int(r["Retry-After"]) > 0
    # Another address is not affected.
    r = client.post(
        url,
        {"login": "mallory", "password": "pw-mallory-1"},
        REMOTE_ADDR="198.51.100.7",
    )
    assert r.status_code == 302


def test_api_submissions_are_limited_per_token_user_not_per_address(
    client, settings, task, participant, outsider, team, test_set, demo_run
):
    settings.SUBMIT_RATE = "2/600"
    teams.register(task=task, user=outsider, new_team_name="Beta")
    url = "/api/tasks/bucc-test/phases/evaluation/runs"

    def post(secret: str, method: str) -> int:
        return client.post(
            url,
            {"method_name": method, "file": SimpleUploadedFile("r.tsv", demo_run)},
            HTTP_AUTHORIZATION=f"Bearer {secret}",
        ).status_code

    alice = token_service.create(user=participant, name="t").secret
    mallory = token_service.create(user=outsider, name="t").secret
    assert [post(alice, f"a{i}") for i in range(3)] == [201, 201, 429]
    # Same client address, another user: a budget of its own.
    assert post(mallory, "m0") == 201
    assert Submission.objects.filter(team__name="Beta").count() == 1


# --- only failed logins count (issue 28, item 11) -----------------------------------


def _login(client, username: str, password: str) -> int:  # noqa: ANN001
    url = reverse("account_login")
    return client.post(url, {"login": username, "password": password}).status_code


def test_successful_logins_from_one_address_lock_nobody_out(
    client, settings, participant, outsider, isolated_storage
):
    """A lab behind one NAT address: 20 logins, then a colleague still logs in."""
    settings.LOGIN_RATE = "3/600"
    settings.LOGIN_ADDRESS_RATE = "5/600"
    codes = [_login(client, "alice", "pw-alice-1") for _ in range(20)]
    assert codes == [302] * 20
    client.logout()
    assert _login(client, "mallory", "pw-mallory-1") == 302
    assert client.session["_auth_user_id"] == str(outsider.pk)


def test_failures_are_still_limited_between_successful_logins(
    client, settings, participant, outsider, isolated_storage
):
    settings.LOGIN_RATE = "3/600"
    settings.LOGIN_ADDRESS_RATE = "5/600"
    for name in ("user1", "user2", "user3"):
        assert _login(client, name, "123456") == 200
    assert _login(client, "alice", "pw-alice-1") == 302  # not a failure
    # Signed in, the login form checks no password (it redirects): guess signed out.
    client.logout()
    assert _login(client, "user4", "123456") == 200
    assert _login(client, "user5", "123456") == 200  # the 5th failure
    client.logout()
    assert _login(client, "mallory", "pw-mallory-1") == 429


def test_a_correct_login_clears_the_names_failures(
    client, settings, participant, isolated_storage
):
    settings.LOGIN_RATE = "3/600"
    assert [_login(client, "alice", "wrong") for _ in range(2)] == [200, 200]
    assert _login(client, "alice", "pw-alice-1") == 302
    client.logout()
    # A fresh budget: three failures again, then the limit.
    assert [_login(client, "ALICE", "wrong") for _ in range(3)] == [200] * 3
    assert _login(client, "alice", "pw-alice-1") == 429
    assert "_auth_user_id" not in client.session


# --- the accounts' login form (django-allauth, issue 29) ---------------------------


def test_a_second_name_field_does_not_pick_the_budget(
    client, settings, participant, isolated_storage
):
    """The accounts' form authenticates ``login``; a ``username`` beside it (the
    admin's field name) must not decide which name the attempt is counted under."""
    settings.LOGIN_RATE = "3/600"
    url = reverse("account_login")
    for i in range(3):
        data = {"login": "alice", "username": f"decoy{i}", "password": "wrong"}
        assert client.post(url, data).status_code == 200
    r = client.post(url, {"login": "alice", "password": "pw-alice-1"})
    assert r.status_code == 429
    assert "_auth_user_id" not in client.session


def test_the_admin_login_is_limited_on_its_own_field(
    client, settings, organiser, isolated_storage
):
    settings.LOGIN_RATE = "3/600"
    url = reverse("admin:login")
    for i in range(3):
        data = {"username": "org", "login": f"decoy{i}", "password": "wrong"}
        assert client.post(url, data).status_code == 200
    r = client.post(url, {"username": "org", "password": "pw-organiser-1"})
    assert r.status_code == 429


def test_failures_on_both_forms_share_one_budget(
    client, settings, organiser, isolated_storage
):
    settings.LOGIN_RATE = "4/600"
    for _ in range(2):
        client.post(reverse("admin:login"), {"username": "org", "password": "x"})
        client.post(reverse("account_login"), {"login": "ORG", "password": "x"})
    r = client.post(reverse("account_login"), {"login": "org", "password": "x"})
    assert r.status_code == 429


def test_a_form_without_a_password_costs_nothing(
    client, settings, participant, isolated_storage
):
    """No password checked, no guess: such posts never lock the name."""
    settings.LOGIN_RATE = "3/600"
    url = reverse("account_login")
    assert [client.post(url, {"login": "alice"}).status_code for _ in range(6)] == [
        200
    ] * 6
    assert _login(client, "alice", "pw-alice-1") == 302
