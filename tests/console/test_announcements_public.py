"""Announcements on the public task page: posted on the console, shown to everyone
who may see the task (anonymous visitors included), newest first, as plain text;
the preview shows them too, and a draft task's announcements stay unseen."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db


def _post(client, task, text: str) -> None:  # noqa: ANN001
    url = reverse("console:announcements", args=[task.slug])
    assert client.post(url, {"text": text}).status_code == 302


def test_announcements_appear_on_the_task_page_newest_first(
    client, organiser, task, phase
):
    client.force_login(organiser)
    _post(client, task, "Test data is out.")
    _post(client, task, "Deadline <b>moved</b> & extended.")
    page = Client().get(task.get_absolute_url()).content.decode()
    assert '<h2 id="announcements-heading">Announcements</h2>' in page
    newer = page.index("Deadline &lt;b&gt;moved&lt;/b&gt; &amp; extended.")
    older = page.index("Test data is out.")
    assert newer < older
    assert "<b>moved</b>" not in page
    preview = client.get(reverse("console:preview-public", args=[task.slug]))
    assert "Test data is out." in preview.content.decode()


def test_a_task_without_announcements_has_no_section(client, task, phase):
    page = client.get(task.get_absolute_url()).content.decode()
    assert "announcements-heading" not in page


def test_a_draft_tasks_announcements_are_not_public(client, organiser, task):
    client.force_login(organiser)
    _post(client, task, "Draft news.")
    task.state = "draft"
    task.save()
    assert Client().get(task.get_absolute_url()).status_code == 404
