"""Notification e-mails (issue 29): an organiser's announcement, a reveal and a gold
release, made through the console's pages, reach by e-mail the registered teams'
members with a verified address who have not opted out, once; the opt-out page;
texts stay plain text and links point at the site."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.urls import reverse

from evalhub.notifications import jobs
from evalhub.notifications.models import Notification

pytestmark = pytest.mark.django_db


def _verified(user, email: str) -> None:  # noqa: ANN001
    EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)


@pytest.fixture
def members(team, other_team, participant, outsider, django_user_model):  # noqa: ANN001, ANN201
    """alice (verified), carol (same team, verified, opted out), dave (same team,
    address not verified), mallory (the other team, verified)."""
    from evalhub.notifications.services import mail as mail_service

    carol = django_user_model.objects.create_user("carol")
    dave = django_user_model.objects.create_user("dave")
    team.members.add(carol, dave)
    _verified(participant, "alice@example.org")
    _verified(outsider, "mallory@example.org")
    _verified(carol, "carol@example.org")
    EmailAddress.objects.create(user=dave, email="dave@example.org", primary=True)
    mail_service.set_wants_mail(user=carol, wanted=False)
    return {"carol": carol, "dave": dave}


def test_an_announcement_is_mailed_once_to_who_wants_it(
    client, settings, organiser, task, members, django_capture_on_commit_callbacks
):
    settings.SITE_URL = "https://evalhub.example.org"
    client.force_login(organiser)
    text = "Deadline moved <b>by a day</b> & more"
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client.post(
            reverse("console:announcements", args=[task.slug]), {"text": text}
        )
    assert response.status_code == 302
    assert callbacks  # the signal, then the mail job sent to the broker
    key = Notification.objects.values_list("key", flat=True).distinct().get()
    assert mail.outbox == []  # a worker sends the mails, not the request
    assert jobs.mail_notifications(key) == 2
    assert jobs.mail_notifications(key) == 0  # delivered twice: nobody mailed twice
    assert sorted(m.to[0] for m in mail.outbox) == [
        "alice@example.org",
        "mallory@example.org",
    ]
    message = mail.outbox[0]
    assert text in message.body  # plain text, not HTML-escaped
    assert f"https://evalhub.example.org/tasks/{task.slug}/" in message.body
    assert "https://evalhub.example.org/notifications/mail/" in message.body
    assert message.subject.startswith("[evalhub] Announcement (")
    # Every member has the notification on the site, mailed or not.
    assert Notification.objects.filter(key=key).count() == 4


def test_reveal_and_gold_release_are_mailed(
    client,
    organiser,
    task,
    private_test_set,
    members,
    django_capture_on_commit_callbacks,
):
    client.force_login(organiser)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("console:testset-reveal", args=[task.slug, private_test_set.pk])
        )
        client.post(reverse("console:gold-release", args=[task.slug]))
    keys = set(Notification.objects.values_list("key", flat=True))
    assert keys == {
        f"testset:{private_test_set.pk}:revealed",
        f"task:{task.pk}:gold-released",
    }
    for key in sorted(keys):
        jobs.mail_notifications(key)
    subjects = sorted(m.subject for m in mail.outbox if m.to == ["alice@example.org"])
    assert len(subjects) == 2 and "released the gold standard" in subjects[0]
    assert len(mail.outbox) == 4  # alice and mallory, twice


def test_run_scored_is_not_mailed(participant, team, members):
    from evalhub.notifications.services.notify import notify

    notify(recipients=[participant], key="run:1:scored:x", text="Scored.", link="/")
    assert jobs.mail_notifications("run:1:scored:x") == 0
    assert mail.outbox == []


def test_the_opt_out_page(client, participant, members):
    url = reverse("notifications:mail-settings")
    assert client.get(url).status_code == 302  # log in first
    client.force_login(participant)
    page = client.get(url).content.decode()
    assert 'name="mail" id="id_mail" checked' in page
    assert client.post(url, {}).status_code == 302
    assert 'id="id_mail" checked' not in client.get(url).content.decode()
    client.post(url, {"mail": "on"})
    assert 'id="id_mail" checked' in client.get(url).content.decode()
