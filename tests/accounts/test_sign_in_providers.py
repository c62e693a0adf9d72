"""Sign-in with another site (issue 44, item 4), end to end against a real OpenID
Connect provider (django-oauth-toolkit, ``tests/oidc_provider/``) started as a
process of its own, configured by the operator's variables. A provider's account
reaches the account that verified the same address, when the provider verified it
too; never one that only claims it."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount
from django.contrib.auth import get_user
from django.core import mail

from evalhub import settings_blocks
from tests.oidc import PROVIDER_ID, running_provider, sign_in

pytestmark = pytest.mark.django_db

USERS = [
    {"username": "newcomer", "email": "newcomer@uni.example", "name": "Ada"},
    {"username": "owner", "email": "owner@uni.example"},
    {"username": "claimed", "email": "claimed@uni.example"},
    {"username": "unsure", "email": "unsure@uni.example", "verified": False},
    {"username": "noaddress", "email": ""},
]


@pytest.fixture(scope="module")
def oidc_provider(tmp_path_factory):  # noqa: ANN001, ANN201
    with running_provider(USERS, tmp_path_factory.mktemp("oidc")) as running:
        yield running


@pytest.fixture
def configured(oidc_provider, settings, monkeypatch):  # noqa: ANN001, ANN201
    """evalhub configured for the provider as an operator does: by its variables."""
    for name, value in oidc_provider.environment().items():
        monkeypatch.setenv(name, value)
    for name, value in settings_blocks.social_accounts().items():
        setattr(settings, name, value)
    return oidc_provider


def _account(user, password: str = "a-Long-pass-29", **address):  # noqa: ANN001, ANN003, ANN202
    user.set_password(password)
    user.email = address["email"]
    user.save()
    EmailAddress.objects.create(user=user, primary=True, **address)
    return user


def test_no_button_without_a_configured_provider(client):  # noqa: ANN001
    page = client.get("/accounts/login/").content.decode()
    assert "Or sign in with" not in page
    assert "/accounts/oidc/" not in page


@pytest.mark.parametrize(
    "path",
    [
        "/accounts/github/login/",
        "/accounts/github/login/callback/?code=x&state=y",
        "/accounts/orcid/login/",
        f"/accounts/oidc/{PROVIDER_ID}/login/",
        f"/accounts/oidc/{PROVIDER_ID}/login/callback/?code=x&state=y",
    ],
)
def test_a_provider_not_configured_has_no_page(client, path):  # noqa: ANN001
    assert client.get(path).status_code == 404
    assert client.post(path).status_code == 404


def test_the_login_page_offers_the_configured_provider(client, configured):  # noqa: ANN001
    page = client.get("/accounts/login/").content.decode()
    assert "University of Testing" in page
    assert f"/accounts/oidc/{PROVIDER_ID}/login/" in page
    # Only the configured one: no GitHub or ORCID button without their variables.
    assert "/accounts/github/" not in page
    assert "/accounts/orcid/" not in page


def test_a_new_user_signs_in_and_gets_an_account(client, configured, django_user_model):  # noqa: ANN001
    answer = sign_in(client, "newcomer")
    assert answer.status_code == 302, answer.content[:300]
    user = get_user(client)
    assert user.is_authenticated
    assert user.email == "newcomer@uni.example"
    assert EmailAddress.objects.get(user=user).verified
    (linked,) = SocialAccount.objects.filter(user=user)
    assert linked.provider == PROVIDER_ID
    # Signing in again reaches the same account.
    client.logout()
    sign_in(client, "newcomer")
    assert get_user(client).pk == user.pk
    assert django_user_model.objects.filter(email="newcomer@uni.example").count() == 1


def test_links_to_the_account_that_verified_the_address(
    client, configured, django_user_model
):  # noqa: ANN001
    owner = _account(
        django_user_model.objects.create(username="local-owner"),
        email="owner@uni.example",
        verified=True,
    )
    sign_in(client, "owner")
    assert get_user(client).pk == owner.pk
    assert SocialAccount.objects.get(provider=PROVIDER_ID).user_id == owner.pk
    owner.refresh_from_db()
    assert owner.has_usable_password()  # the owner's password still logs in
    assert django_user_model.objects.count() == 1


def test_never_links_to_an_account_that_only_claims_the_address(
    client, configured, django_user_model
):  # noqa: ANN001
    squatter = _account(
        django_user_model.objects.create(username="squatter"),
        email="claimed@uni.example",
        verified=False,
    )
    sign_in(client, "claimed")
    user = get_user(client)
    assert user.is_authenticated
    assert user.pk != squatter.pk
    assert not SocialAccount.objects.filter(user=squatter).exists()
    squatter.refresh_from_db()
    assert squatter.has_usable_password()  # nothing of it changed but its claim
    # The provider verified the address: it is the new account's, the claim is gone.
    assert EmailAddress.objects.get(email="claimed@uni.example").user_id == user.pk
    assert EmailAddress.objects.get(user=user).verified
    assert squatter.email == ""


def test_an_address_the_provider_did_not_verify_links_nothing(
    client, configured, django_user_model
):  # noqa: ANN001
    owner = _account(
        django_user_model.objects.create(username="local-unsure"),
        email="unsure@uni.example",
        verified=True,
    )
    sign_in(client, "unsure")
    user = get_user(client)
    assert user.is_authenticated
    assert user.pk != owner.pk
    assert not SocialAccount.objects.filter(user=owner).exists()
    # The new account only claims it; the owner keeps it.
    assert not EmailAddress.objects.filter(user=user, verified=True).exists()
    assert EmailAddress.objects.get(user=owner).verified


def test_a_signed_in_user_links_a_provider_account(
    client, configured, django_user_model
):  # noqa: ANN001
    """From the "Sign-in accounts" page: the provider's account is linked whatever
    its address, and signs in to this account afterwards."""
    user = _account(
        django_user_model.objects.create(username="linker"),
        email="linker@elsewhere.example",
        verified=True,
    )
    client.force_login(user)
    page = client.get("/accounts/3rdparty/").content.decode()
    assert "No account of another site is linked" in page
    sign_in(client, "newcomer", start="/accounts/3rdparty/")
    (linked,) = SocialAccount.objects.filter(user=user)
    assert linked.provider == PROVIDER_ID
    assert "newcomer@uni.example" in client.get("/accounts/3rdparty/").content.decode()
    client.logout()
    sign_in(client, "newcomer")
    assert get_user(client).pk == user.pk


def test_a_provider_without_an_address_asks_for_one(
    client, configured, django_user_model
):  # noqa: ANN001
    """ORCID gives no address unless its owner made it public: the new account asks
    for one (with a user name), and mails a link to verify it."""
    answer = sign_in(client, "noaddress")
    assert answer.status_code == 302
    assert answer["Location"] == "/accounts/3rdparty/signup/"
    form = client.get(answer["Location"]).content.decode()
    assert "University of Testing signed you in but gave no e-mail address" in form
    mail.outbox.clear()
    done = client.post(
        "/accounts/3rdparty/signup/",
        {"username": "no-address", "email": "found@elsewhere.example"},
    )
    assert done.status_code == 302
    user = get_user(client)
    assert user.username == "no-address"
    assert SocialAccount.objects.get(user=user).provider == PROVIDER_ID
    assert not EmailAddress.objects.get(user=user).verified
    (message,) = mail.outbox
    assert message.to == ["found@elsewhere.example"]
