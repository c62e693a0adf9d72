"""Accounts with e-mail (issue 29, django-allauth): sign-up with an address and its
verification by the mailed link, password reset, change of address, older accounts
without an address, user names as Django's own forms take them (NFKC). Every step is
a web request through the test client; mails are read from Django's outbox or, as
under ``manage.py up``, from the files the mail backend writes."""

from __future__ import annotations

import logging
import re

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.urls import reverse

pytestmark = pytest.mark.django_db

#: The site's public address (``SITE_URL``): every link in a mail starts with it,
#: not with the host the request came through (``testserver``).
SITE = "https://evalhub.example.org"
LINK = re.compile(re.escape(SITE) + r"(/accounts/\S+/)")


@pytest.fixture(autouse=True)
def _site_url(settings) -> None:  # noqa: ANN001
    settings.SITE_URL = SITE


def _link(body: str) -> str:
    """The one site link of a mail, as a path."""
    links = LINK.findall(body)
    assert len(links) == 1, body
    return links[0]


def _signup(client, username: str, email: str, password: str = "a-Long-pass-29"):  # noqa: ANN001, ANN202
    return client.post(
        reverse("account_signup"),
        {
            "username": username,
            "email": email,
            "password1": password,
            "password2": password,
        },
    )


def _login(client, username: str, password: str) -> int:  # noqa: ANN001
    return client.post(
        reverse("account_login"), {"login": username, "password": password}
    ).status_code


def test_signup_mails_a_link_that_verifies_the_address(
    client, django_user_model, isolated_storage
):
    response = _signup(client, "zoë.o-b", "zoe@example.org")
    assert response.status_code == 302
    user = django_user_model.objects.get(username="zoë.o-b")
    assert user.email == "zoe@example.org"
    assert client.session["_auth_user_id"] == str(user.pk)  # signed in at once
    address = EmailAddress.objects.get(user=user)
    assert address.email == "zoe@example.org" and not address.verified
    (message,) = mail.outbox
    assert message.to == ["zoe@example.org"]
    assert message.subject.startswith("[evalhub] ")
    # Plain text: the name as typed, not HTML-escaped.
    assert "zoë.o-b" in message.body
    confirm = _link(message.body)
    assert client.get(confirm).status_code == 200  # a page with a Confirm button
    address.refresh_from_db()
    assert not address.verified  # a GET (a mail scanner's) verifies nothing
    assert client.post(confirm).status_code == 302
    address.refresh_from_db()
    assert address.verified and address.primary


def test_signup_needs_an_address(client, django_user_model, isolated_storage):
    """An address someone else has is not refused (that would tell it has an
    account): ``test_address_claims.py``."""
    assert _signup(client, "nomail", "").status_code == 200
    assert not django_user_model.objects.filter(username="nomail").exists()
    assert mail.outbox == []


def test_an_address_is_shown_as_plain_text(client, isolated_storage):
    _signup(client, "quote", "o'brien&co@example.org")
    page = client.get(_link(mail.outbox[0].body)).content.decode()
    assert "o&#x27;brien&amp;co@example.org" in page
    assert "o'brien&co@example.org" not in page


def test_a_name_is_taken_in_every_unicode_spelling(
    client, django_user_model, participant, isolated_storage
):
    """``ａlice`` (fullwidth a) is ``alice`` after NFKC, as Django's forms store it."""
    response = _signup(client, "\uff41lice", "other@example.org")
    assert response.status_code == 200
    assert django_user_model.objects.count() == 1
    assert _signup(client, "\uff42ob", "bob@example.org").status_code == 302
    assert django_user_model.objects.filter(username="bob").exists()


def test_the_fullwidth_spelling_logs_in_as_the_plain_name(
    client, participant, isolated_storage
):
    assert _login(client, "\uff41lice", "pw-alice-1") == 302
    assert client.session["_auth_user_id"] == str(participant.pk)


def _reset(client, email: str) -> str:  # noqa: ANN001
    response = client.post(reverse("account_reset_password"), {"email": email})
    assert response.status_code == 302
    assert response["Location"] == reverse("account_reset_password_done")
    return response


def _set_new_password(client, link: str, password: str) -> None:  # noqa: ANN001
    """Follow a reset link and choose a new password, as a browser does."""
    response = client.get(link)
    assert response.status_code == 302  # the key moves to the session
    form = response["Location"]
    assert client.get(form).status_code == 200
    done = client.post(form, {"password1": password, "password2": password})
    assert done.status_code == 302, done.content.decode()[:2000]
    assert done["Location"] == reverse("account_reset_password_from_key_done")


def test_password_reset_by_the_mailed_link(client, participant, isolated_storage):
    EmailAddress.objects.create(
        user=participant, email="alice@example.org", verified=True, primary=True
    )
    _reset(client, "alice@example.org")
    (message,) = mail.outbox
    assert message.to == ["alice@example.org"]
    assert "alice" in message.body  # "your username is alice"
    _set_new_password(client, _link(message.body), "new-Secret-29")
    assert _login(client, "alice", "pw-alice-1") == 200  # the old one is gone
    assert _login(client, "alice", "new-Secret-29") == 302
    # The link was used up.
    client.logout()
    response = client.get(_link(message.body), follow=True)
    assert b"new-Secret" not in response.content
    assert "token_fail" in response.context and response.context["token_fail"]


def test_an_older_account_with_only_user_email_can_reset(
    client, django_user_model, isolated_storage
):
    """Accounts from before allauth have ``User.email`` and no address row."""
    django_user_model.objects.create_user(
        "old", email="old@example.org", password="pw-old-1"
    )
    _reset(client, "old@example.org")
    (message,) = mail.outbox
    _set_new_password(client, _link(message.body), "new-Secret-29")
    assert _login(client, "old", "new-Secret-29") == 302


def test_password_reset_through_the_mail_folder(
    client, settings, participant, tmp_path, caplog, isolated_storage
):
    """As under ``manage.py up``: each mail is a file of its own in the mail folder
    (and in the log), and the link read from the file works."""
    settings.EMAIL_BACKEND = "evalhub.accounts.mail.ConsoleAndFileBackend"
    settings.EMAIL_FILE_PATH = tmp_path / "mail"
    EmailAddress.objects.create(
        user=participant, email="alice@example.org", verified=True, primary=True
    )
    with caplog.at_level(logging.INFO, logger="evalhub.mail"):
        _reset(client, "alice@example.org")
        _reset(client, "nobody@example.org")  # "no account": a mail all the same
    files = sorted((tmp_path / "mail").iterdir())
    assert len(files) == 2
    texts = [f.read_text() for f in files]
    (alice,) = [t for t in texts if "To: alice@example.org" in t]
    assert any("To: nobody@example.org" in t for t in texts)
    link = _link(alice)
    assert link in caplog.text  # the console log shows it too
    _set_new_password(client, link, "new-Secret-29")
    assert _login(client, "alice", "new-Secret-29") == 302


def test_change_of_address_takes_effect_once_the_new_one_is_verified(
    client, participant, isolated_storage
):
    EmailAddress.objects.create(
        user=participant, email="alice@example.org", verified=True, primary=True
    )
    participant.email = "alice@example.org"
    participant.save()
    client.force_login(participant)
    page = client.get(reverse("account_email"))
    assert page.status_code == 200 and b"alice@example.org" in page.content
    response = client.post(
        reverse("account_email"), {"action_add": "", "email": "alice@lab.example"}
    )
    assert response.status_code == 302
    (message,) = mail.outbox
    assert message.to == ["alice@lab.example"]
    participant.refresh_from_db()
    assert participant.email == "alice@example.org"  # not before it is verified
    client.post(_link(message.body))
    participant.refresh_from_db()
    assert participant.email == "alice@lab.example"
    # The old address is told, in case someone else made the change.
    assert [m.to for m in mail.outbox[1:]] == [["alice@example.org"]]
    assert "alice@lab.example" in mail.outbox[1].body
    assert list(EmailAddress.objects.filter(user=participant).values_list(
        "email", "verified", "primary"
    )) == [("alice@lab.example", True, True)]  # fmt: skip


def test_an_account_without_address_logs_in_and_adds_one(
    client, participant, isolated_storage
):
    """Accounts made before e-mail existed (alice has none) keep working."""
    assert participant.email == ""
    assert _login(client, "alice", "pw-alice-1") == 302
    assert client.get(reverse("competitions:task-list")).status_code == 200
    response = client.post(
        reverse("account_email"), {"action_add": "", "email": "alice@example.org"}
    )
    assert response.status_code == 302
    client.post(_link(mail.outbox[0].body))
    address = EmailAddress.objects.get(user=participant)
    assert address.verified and address.primary
    participant.refresh_from_db()
    assert participant.email == "alice@example.org"


def test_reset_mails_to_one_address_are_limited(client, participant, isolated_storage):
    """allauth's own limit on reset mails stays on (5 a minute per address): the
    form cannot be used to flood someone's inbox."""
    EmailAddress.objects.create(
        user=participant, email="alice@example.org", verified=True, primary=True
    )
    url = reverse("account_reset_password")
    answers = [client.post(url, {"email": "alice@example.org"}) for _ in range(6)]
    assert [a.status_code for a in answers] == [302] * 5 + [429]
    assert len(mail.outbox) == 5
    # Answered as the site's own limits answer: a wait in Retry-After (the longest
    # of allauth's windows, here its 180 s between verification mails) and a page.
    refused = answers[-1]
    assert refused["Retry-After"] == "180"
    assert "Please try again in 180 seconds." in refused.content.decode()
