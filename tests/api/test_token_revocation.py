"""Every API token of an account is revoked when its password is changed (allauth's
page) or reset (the mailed link): web requests through the test client, the token
used on the REST API before and after."""

from __future__ import annotations

import re

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.urls import reverse

from evalhub.api.models import ApiToken
from evalhub.api.services import tokens as token_service
from tests.api.fixtures import TASK, auth

pytestmark = pytest.mark.django_db

RUNS = f"{TASK}/phases/evaluation/runs"


def _two_tokens(user) -> list[str]:  # noqa: ANN001
    return [token_service.create(user=user, name=name).secret for name in ("a", "b")]


def test_a_password_change_revokes_every_token(client, participant, team, phase):
    secrets = _two_tokens(participant)
    assert all(client.get(RUNS, **auth(s)).status_code == 200 for s in secrets)
    client.force_login(participant)
    changed = client.post(
        reverse("account_change_password"),
        {
            "oldpassword": "pw-alice-1",
            "password1": "new-Secret-41",
            "password2": "new-Secret-41",
        },
    )
    assert changed.status_code == 302, changed.content.decode()[:2000]
    client.logout()
    for secret in secrets:
        refused = client.get(RUNS, **auth(secret))
        assert refused.status_code == 401
        assert "revoked" in refused.json()["detail"]
    assert not ApiToken.objects.filter(revoked_at=None).exists()


def test_a_password_reset_revokes_every_token(client, participant, team, phase):
    EmailAddress.objects.create(
        user=participant, email="alice@example.org", verified=True, primary=True
    )
    secrets = _two_tokens(participant)
    client.post(reverse("account_reset_password"), {"email": "alice@example.org"})
    (message,) = mail.outbox
    link = re.search(r"https?://[^/\s]+(/accounts/\S+/)", message.body)[1]
    form = client.get(link)["Location"]
    done = client.post(
        form, {"password1": "new-Secret-41", "password2": "new-Secret-41"}
    )
    assert done.status_code == 302
    for secret in secrets:
        assert client.get(RUNS, **auth(secret)).status_code == 401


def test_a_login_keeps_the_tokens(client, participant, team, phase):
    """Signing in (which may re-hash the password) revokes nothing."""
    (secret, _) = _two_tokens(participant)
    assert client.login(username="alice", password="pw-alice-1")
    client.logout()
    assert client.get(RUNS, **auth(secret)).status_code == 200
