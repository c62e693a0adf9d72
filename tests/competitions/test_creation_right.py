"""Issue 43.6: a user without the right to create tasks is told at ``/new/task/`` how
to get it (not a bare 404), hears by mail when site staff grant it, and the staff
page's record of grants shows times in the viewer's zone."""

from __future__ import annotations

import re

import pytest
from allauth.account.models import EmailAddress
from django.core import mail

from evalhub.notifications import jobs
from evalhub.notifications.models import Notification

pytestmark = pytest.mark.django_db

SITE = "https://evalhub.example.org"


@pytest.fixture
def carol(django_user_model):  # noqa: ANN001, ANN201
    user = django_user_model.objects.create_user("carol", password="pw-carol-1")
    EmailAddress.objects.create(
        user=user, email="carol@example.org", verified=True, primary=True
    )
    return user


@pytest.mark.parametrize("path", ["/new/task/", "/new/bundle/"])
def test_the_new_task_page_tells_how_to_get_the_right(client, settings, carol, path):
    settings.TASK_CREATORS = "verified"  # carol has a verified address: she may
    client.force_login(carol)
    assert client.get(path).status_code == 200
    settings.TASK_CREATORS = "staff"
    response = client.get(path)
    assert response.status_code == 403
    page = response.content.decode()
    assert "Creating tasks needs a right you do not have yet" in page
    assert "Ask the site&#x27;s staff" in page and "you get an e-mail" in page
    assert '<a href="/">The list of tasks</a>' in page


def test_a_grant_is_mailed_with_the_way_to_the_new_task_page(
    client, settings, organiser, carol, django_capture_on_commit_callbacks
):
    settings.SITE_URL = SITE
    client.force_login(organiser)  # a staff user
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/staff/creators/", {"user": carol.pk, "action": "grant"}
        )
    assert response.status_code == 302
    (note,) = Notification.objects.filter(recipient=carol)
    assert jobs.mail_notifications(note.key) == 1
    (message,) = mail.outbox
    assert message.to == ["carol@example.org"]
    assert "granted you the right to create tasks" in message.subject
    assert f"{SITE}/new/task/" in message.body
    assert "site staff changed what your account may do" in message.body
    # Withdrawing mails nothing.
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/staff/creators/", {"user": carol.pk, "action": "withdraw"})
    assert Notification.objects.filter(recipient=carol).count() == 1


def test_the_record_of_grants_is_in_the_viewers_time_zone(client, organiser, carol):
    """Drawn as every page's times (UTC, labelled, redrawn by the browser in the
    viewer's zone: ``evalhub_tags.when``), whatever zone the cookie names."""
    client.force_login(organiser)
    client.post("/staff/creators/", {"user": carol.pk, "action": "grant"})
    client.cookies["tz"] = "Asia/Tokyo"
    page = client.get("/staff/creators/").content.decode()
    (line,) = re.findall(r"<li><time[^>]*>[^<]*</time>: granted to", page)
    assert 'data-when="minutes"' in line and " UTC</time>" in line
