"""Only the task's organisers write messages or see their recipients: every page
of messages, role by role (anonymous, participant, other team, co-organiser,
organiser of another task, site staff); a POST by the wrong role stores and
sends nothing."""

from __future__ import annotations

import pytest
from django.core import mail
from django.urls import reverse

from evalhub.competitions.models import SharedTask
from evalhub.mailings.models import Message
from evalhub.mailings.services import compose

pytestmark = pytest.mark.django_db


def test_message_pages_role_by_role(
    client,
    organiser,
    participant,
    outsider,
    task,
    team,
    other_team,
    django_user_model,
):  # noqa: ANN001
    co = django_user_model.objects.create_user("co")
    task.organisers.add(co)
    elsewhere = django_user_model.objects.create_user("elsewhere")
    other_task = SharedTask.objects.create(
        slug="other",
        title="Other",
        task_type=task.task_type,
        task_settings=task.task_settings,
    )
    other_task.organisers.add(elsewhere)
    staff = django_user_model.objects.create_user("staff", is_staff=True)
    message = compose.post(
        task=task, author=organiser, subject="Hello", body="Hi", key="all"
    )
    urls = [
        reverse("console:messages", args=[task.slug]),
        reverse("console:message-create", args=[task.slug]),
        reverse("console:message-detail", args=[task.slug, message.pk]),
        reverse("console:message-progress", args=[task.slug, message.pk]),
    ]
    post = {"subject": "S", "body": "B", "audience": "all", "send": "1"}
    for url in urls:
        response = client.get(url)
        assert (
            response.status_code == 302 and "/accounts/login/" in response["Location"]
        )
    assert client.post(urls[1], post).status_code == 302  # to the login page
    for user in (participant, outsider, elsewhere, staff):
        client.force_login(user)
        for url in urls:
            assert client.get(url).status_code == 404, (user, url)
        assert client.post(urls[1], post).status_code == 404
    # The other task's organiser cannot reach this task's message through theirs.
    client.force_login(elsewhere)
    url = reverse("console:message-detail", args=[other_task.slug, message.pk])
    assert client.get(url).status_code == 404
    assert Message.objects.count() == 1
    client.force_login(co)
    for url in urls:
        page = client.get(url)
        assert page.status_code == 200, url
    detail = client.get(urls[2]).content.decode()
    assert "alice" in detail and "mallory" in detail  # the recipients
    assert client.post(urls[1], post).status_code == 302
    assert Message.objects.count() == 2
    assert mail.outbox == []
