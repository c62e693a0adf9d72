"""Words of the console's forms as an organiser reads them (Django's client): the
task types' primary metric by its label, and announcements that say who gets them."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tasks import registry

pytestmark = pytest.mark.django_db


def test_the_new_task_form_names_each_primary_metric_by_its_label(organiser):
    client = Client()
    client.force_login(organiser)
    html = client.get(reverse("console:task-create")).content.decode()
    for slug in registry.slugs():
        task_type = registry.get(slug)
        label = task_type.metric(task_type.primary_metric).label
        assert f"Primary metric: {label}." in html, slug
        if label != task_type.primary_metric:
            assert f"Primary metric: {task_type.primary_metric}." not in html
    assert "correct_low_mean" not in html


def test_announcements_say_there_is_no_registered_team(task, organiser):
    client = Client()
    client.force_login(organiser)
    url = reverse("console:announcements", args=[task.slug])
    html = client.get(url).content.decode()
    assert "registered teams" not in html
    assert "No team is registered for this task yet" in html
    assert ">Post on the task page</button>" in html
    done = client.post(url, {"text": "Gold is out."}, follow=True).content.decode()
    assert "sent to the registered teams" not in done
    assert "No team is registered yet, so no one was notified." in done


def test_announcements_count_the_registered_teams(task, organiser, team):  # noqa: ARG001
    client = Client()
    client.force_login(organiser)
    url = reverse("console:announcements", args=[task.slug])
    html = client.get(url).content.decode()
    assert ">Send to the 1 registered team</button>" in html
    done = client.post(url, {"text": "Gold is out."}, follow=True).content.decode()
    assert "sent to the 1 registered team." in done
