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
    url = reverse("accounts:login")
    for _ in range(3):
        assert client.post(url, {"username": "alice", "password": "x"}).status_code
    # The fullwidth spelling logs in as alice: it must not get a fresh budget.
    r = client.post(url, {"username": FULLWIDTH_ALICE, "password": "pw-alice-1"})
    assert r.status_code == 429
    assert "_auth_user_id" not in client.session


def test_one_password_across_many_names_is_limited_per_address(
    client, settings, participant, outsider, isolated_storage
):
    settings.LOGIN_RATE = "3/600"
    settings.LOGIN_ADDRESS_RATE = "5/600"
    url = reverse("accounts:login")
    codes = [
        client.post(url, {"username": f"user{i}", "password": "123456"}).status_code
        for i in range(5)
    ]
    assert codes == [200] * 5
    r = client.post(url, {"username": "mallory", "password": "pw-mallory-1"})
    assert r.status_code == 429 and int(r["Retry-After"]) > 0
    # Another address is not affected.
    r = client.post(
        url,
        {"username": "mallory", "password": "pw-mallory-1"},
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
