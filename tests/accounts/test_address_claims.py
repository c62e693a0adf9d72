"""An e-mail address belongs to the account that verified it (issue 41, item 7): a
claim made by someone else (at sign-up, or as a pending change of address) never
blocks its owner's sign-up, and no form (sign-up, password reset, change of address)
answers differently for an address that has an account. Logins take the user name or
the verified address, and following the verification link leads on (issue 43, item
5). Every step is a web request through the test client."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.urls import reverse

from evalhub.accounts.adapter import VERIFIED_NEXT
from evalhub.accounts.forms import LOGIN_LABEL
from tests.accounts.test_email_accounts import (  # noqa: F401 (_site_url: autouse)
    _link,
    _login,
    _signup,
    _site_url,
)

pytestmark = pytest.mark.django_db


def _verify(client, body: str):  # noqa: ANN001, ANN202
    return client.post(_link(body))


def test_a_squatted_address_does_not_block_its_owner(
    client, django_user_model, isolated_storage
):
    assert _signup(client, "squatter", "owner@example.org").status_code == 302
    client.logout()
    mail.outbox.clear()
    # The owner signs up with it all the same, and verifies it.
    assert _signup(client, "owner", "owner@example.org").status_code == 302
    owner = django_user_model.objects.get(username="owner")
    (message,) = mail.outbox
    assert message.to == ["owner@example.org"]
    _verify(client, message.body)
    assert EmailAddress.objects.get(user=owner).verified
    # The squatter's claim is gone; the address logs in as its owner only.
    squatter = django_user_model.objects.get(username="squatter")
    assert not EmailAddress.objects.filter(user=squatter).exists()
    squatter.refresh_from_db()
    assert squatter.email == ""
    client.logout()
    assert _login(client, "owner@example.org", "a-Long-pass-29") == 302
    assert client.session["_auth_user_id"] == str(owner.pk)


def test_a_pending_change_of_address_does_not_block_its_owner(
    client, participant, django_user_model, isolated_storage
):
    client.force_login(participant)
    pending = client.post(
        reverse("account_email"), {"action_add": "", "email": "owner@example.org"}
    )
    assert pending.status_code == 302
    client.logout()
    mail.outbox.clear()
    assert _signup(client, "owner", "owner@example.org").status_code == 302
    owner = django_user_model.objects.get(username="owner")
    _verify(client, mail.outbox[0].body)
    assert EmailAddress.objects.get(user=owner).verified
    assert not EmailAddress.objects.filter(user=participant).exists()


def _answer(response) -> tuple[int, str, list[str]]:  # noqa: ANN001
    """What a visitor can see of a form's answer."""
    body = response.content.decode()
    return (
        response.status_code,
        response.get("Location", ""),
        [w for w in ("already", "registered", "taken", "in use") if w in body],
    )


def test_no_form_tells_whether_an_address_has_an_account(
    client, participant, outsider, django_user_model, isolated_storage
):
    EmailAddress.objects.create(
        user=participant, email="alice@example.org", verified=True, primary=True
    )
    # Sign-up: the same answer for a registered and a free address.
    taken = _answer(_signup(client, "copycat", "ALICE@example.org"))
    client.logout()
    free = _answer(_signup(client, "newcomer", "new@example.org"))
    client.logout()
    assert taken == free and taken[0] == 302
    # The owner is told by mail; the copy cannot verify the address.
    (to_owner,) = [m for m in mail.outbox if m.to == ["alice@example.org"]]
    assert "/accounts/confirm-email/" not in to_owner.body
    assert EmailAddress.objects.filter(email__iexact="alice@example.org").count() == 2
    # Password reset: the same answer.
    url = reverse("account_reset_password")
    reset_known = client.post(url, {"email": "alice@example.org"})
    reset_unknown = client.post(url, {"email": "nobody@example.org"})
    assert _answer(reset_known) == _answer(reset_unknown)
    # A change of address: the same answer.
    client.force_login(outsider)
    change_taken = client.post(
        reverse("account_email"), {"action_add": "", "email": "alice@example.org"}
    )
    change_free = client.post(
        reverse("account_email"), {"action_add": "", "email": "free@example.org"}
    )
    assert _answer(change_taken) == _answer(change_free)
    assert change_taken.status_code == 302


def test_login_takes_the_name_or_the_verified_address(
    client, participant, isolated_storage
):
    page = client.get(reverse("account_login")).content.decode()
    assert LOGIN_LABEL in page
    address = EmailAddress.objects.create(
        user=participant, email="alice@example.org", verified=False, primary=True
    )
    assert _login(client, "alice@example.org", "pw-alice-1") == 200  # unverified
    address.verified = True
    address.save()
    assert _login(client, "Alice@Example.org", "pw-alice-1") == 302
    assert client.session["_auth_user_id"] == str(participant.pk)
    client.logout()
    assert _login(client, "alice@example.org", "wrong") == 200
    assert _login(client, "alice", "pw-alice-1") == 302


def test_after_verifying_the_user_goes_on_where_they_were_going(
    client, task, isolated_storage
):
    going = reverse("competitions:task-detail", args=[task.slug])
    response = client.post(
        reverse("account_signup"),
        {
            "username": "newbie",
            "email": "newbie@example.org",
            "password1": "a-Long-pass-29",
            "password2": "a-Long-pass-29",
            "next": going,
        },
    )
    assert response.status_code == 302
    client.get(going)  # where the sign-up led
    landed = _verify(client, mail.outbox[0].body)
    assert landed.status_code == 302
    assert landed["Location"] == going
    page = client.get(going).content.decode()
    assert VERIFIED_NEXT.split(":")[0] in page


def test_without_a_destination_verifying_leads_to_the_home_page(
    client, isolated_storage
):
    _signup(client, "plain", "plain@example.org")
    landed = _verify(client, mail.outbox[0].body)
    assert landed["Location"] == reverse("competitions:task-list")
    assert landed["Location"] != reverse("account_email")
