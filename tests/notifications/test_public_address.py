"""Issue 43.1: every mail and every absolute link starts with the site's one public
address (``SITE_URL``), whether a worker sends it (no request) or a request does
(allauth's account mails, which used to name and link the request's host), and no
subject is cut mid-word."""

from __future__ import annotations

import re

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.urls import reverse

from evalhub.notifications import jobs

pytestmark = pytest.mark.django_db

SITE = "https://evalhub.example.org:8161"


def test_a_reveal_mailed_by_the_worker_links_to_the_public_address_whole(
    client,
    settings,
    organiser,
    task,
    private_test_set,
    team,
    participant,
    django_capture_on_commit_callbacks,
):
    settings.SITE_URL = SITE
    EmailAddress.objects.create(
        user=participant, email="alice@example.org", verified=True, primary=True
    )
    private_test_set.name = "the private test set of the second evaluation round"
    private_test_set.save(update_fields=["name"])
    client.force_login(organiser)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("console:testset-reveal", args=[task.slug, private_test_set.pk])
        )
    # What the mail job does in a worker, without a request.
    assert jobs.mail_notifications(f"testset:{private_test_set.pk}:revealed") == 1
    (message,) = mail.outbox
    assert message.subject.endswith("are now public.")  # not "…are now publi…"
    phase = private_test_set.phase
    board = reverse("competitions:leaderboard-detail", args=[task.slug, phase.slug])
    links = re.findall(r"https?://\S+", message.body)
    assert links == [
        SITE + board,
        SITE + reverse("notifications:mail-settings"),
    ]


def test_account_mails_name_the_site_and_link_to_its_public_address(
    client, settings, isolated_storage
):
    settings.SITE_URL = SITE
    client.post(
        reverse("account_signup"),
        {
            "username": "zoe",
            "email": "zoe@example.org",
            "password1": "a-Long-pass-29",
            "password2": "a-Long-pass-29",
        },
    )
    client.logout()
    client.post(reverse("account_reset_password"), {"email": "zoe@example.org"})
    client.post(reverse("account_reset_password"), {"email": "nobody@example.org"})
    assert len(mail.outbox) == 3  # verification, reset, "no account with it"
    for message in mail.outbox:
        assert "Hello from evalhub!" in message.body, message.body
        assert "testserver" not in message.body, message.body
        links = re.findall(r"https?://\S+", message.body)
        assert links and all(link.startswith(SITE + "/") for link in links), links


def test_the_invitation_link_and_the_client_command_use_the_public_address(
    client, settings, team, participant
):
    settings.SITE_URL = SITE
    client.force_login(participant)
    client.post(reverse("teams:invitation-create", args=[team.pk]), {"link": "1"})
    page = client.get(reverse("teams:team-detail", args=[team.pk])).content.decode()
    assert f"{SITE}/teams/join/" in page and "testserver" not in page


@pytest.mark.parametrize(
    "value", ["evalhub.org", "ftp://evalhub.org", "https://evalhub.org/sub/"]
)
def test_a_public_address_that_is_not_one_stops_the_start(monkeypatch, value):  # noqa: ANN001
    from django.core.exceptions import ImproperlyConfigured

    from evalhub import settings_blocks

    monkeypatch.setenv("EVALHUB_SITE_URL", value)
    with pytest.raises(ImproperlyConfigured, match="EVALHUB_SITE_URL"):
        settings_blocks.site_url()
    monkeypatch.setenv("EVALHUB_SITE_URL", "https://evalhub.org/")
    assert settings_blocks.site_url() == "https://evalhub.org"
