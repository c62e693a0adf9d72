"""The header bell (without JavaScript, and its htmx fragment), the list, "mark all
read", and opening one notification."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evalhub.notifications.models import Notification
from evalhub.notifications.services.notify import notify

pytestmark = pytest.mark.django_db


def _bell(html: bytes) -> str:
    text = html.decode()
    start = text.index('id="bell"')
    return text[start : text.index("</a>", start)]


def test_bell_in_the_header_counts_unread(client, task, participant, outsider):
    client.force_login(participant)
    assert "badge" not in _bell(client.get("/").content)
    notify(recipients=[participant], key="a", text="Run 1 was scored.", link="/runs/1/")
    notify(recipients=[participant], key="b", text="Run 2 was scored.", link="/runs/2/")
    notify(recipients=[outsider], key="a", text="Run 9 was scored.", link="/runs/9/")
    bell = _bell(
        client.get(reverse("competitions:task-detail", args=[task.slug])).content
    )
    assert 'data-unread="2"' in bell and 'href="/notifications/"' in bell
    assert 'hx-get="/notifications/bell/"' in bell
    fragment = client.get(
        reverse("notifications:notification-bell"), HTTP_HX_REQUEST="true"
    )
    assert fragment.status_code == 200
    assert fragment.content.decode().strip().startswith('<a id="bell"')
    assert 'data-unread="2"' in fragment.content.decode()


def test_anonymous_pages_have_no_bell(client, task):
    assert b'id="bell"' not in client.get("/").content
    bell = reverse("notifications:notification-bell")
    assert client.get(bell).status_code == 302  # to the login page
    # Signed out while the page polls: htmx stops polling and removes the bell.
    stop = client.get(bell, HTTP_HX_REQUEST="true")
    assert stop.status_code == 286 and stop.content == b""


def test_list_and_mark_all_read(client, participant, outsider):
    notify(recipients=[participant], key="a", text="You were invited.", link="/teams/")
    notify(recipients=[outsider], key="a", text="Not for alice.", link="/")
    client.force_login(participant)
    page = client.get(reverse("notifications:notification-list"))
    assert (
        b"You were invited." in page.content and b"Not for alice." not in page.content
    )
    assert b"Unread: " in page.content
    done = client.post(reverse("notifications:notification-read-all"), follow=True)
    assert b"1 notification marked read." in done.content
    assert not Notification.objects.filter(recipient=participant, read=False).exists()
    assert Notification.objects.filter(recipient=outsider, read=False).exists()


def test_opening_a_notification_marks_it_read_and_follows_its_link(
    client, participant, outsider
):
    notify(recipients=[participant], key="a", text="t", link="/teams/")
    notify(recipients=[outsider], key="a", text="t", link="/")
    mine = Notification.objects.get(recipient=participant)
    theirs = Notification.objects.get(recipient=outsider)
    client.force_login(participant)
    response = client.post(reverse("notifications:notification-open", args=[mine.pk]))
    assert response.status_code == 302 and response["Location"] == "/teams/"
    mine.refresh_from_db()
    assert mine.read
    assert (
        client.post(
            reverse("notifications:notification-open", args=[theirs.pk])
        ).status_code
        == 404
    )
    theirs.refresh_from_db()
    assert not theirs.read


def test_an_external_link_is_not_followed(client, participant):
    notify(recipients=[participant], key="a", text="t", link="https://evil.example/")
    n = Notification.objects.get()
    client.force_login(participant)
    response = client.post(reverse("notifications:notification-open", args=[n.pk]))
    assert response["Location"] == "/notifications/"
