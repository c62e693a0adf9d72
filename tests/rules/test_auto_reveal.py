"""A private test set revealed when its phase closes (issue 44, item 5): opted in
on the console's test set page, done by beat's job, announced by mail like a
reveal by hand; a test set not opted in, or whose phase is still open, stays
hidden, and a second tick changes nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from allauth.account.models import EmailAddress
from django.conf import settings
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from evalhub.competitions import jobs
from evalhub.competitions.models import Phase, TestSet
from evalhub.notifications import jobs as notification_jobs
from evalhub.notifications.models import Notification

pytestmark = pytest.mark.django_db


def test_beat_runs_the_reveal_job():
    entry = settings.CELERY_BEAT_SCHEDULE["reveal-test-sets"]
    from evalhub.celery import app

    assert entry["task"] == jobs.reveal_due_test_sets.name
    assert entry["task"] in app.tasks


def test_an_opted_in_private_test_set_is_revealed_when_its_phase_closes(
    client,
    organiser,
    task,
    phase,
    private_test_set,
    team,
    participant,
    django_capture_on_commit_callbacks,
):
    EmailAddress.objects.create(
        user=participant, email="alice@example.org", verified=True, primary=True
    )
    client.force_login(organiser)
    url = reverse("console:testset-edit", args=[task.slug, private_test_set.pk])
    response = client.post(
        url,
        {
            "name": private_test_set.name,
            "slug": private_test_set.slug,
            "counts_for_ranking": "on",
            "reveal_at_phase_end": "on",
            "order": "0",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    private_test_set.refresh_from_db()
    assert private_test_set.reveal_at_phase_end

    # Not yet: the phase is open.
    assert jobs.reveal_due_test_sets.apply().get() == []
    Phase.objects.filter(pk=phase.pk).update(
        closes_at=timezone.now() - timedelta(seconds=1)
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert jobs.reveal_due_test_sets.apply().get() == [private_test_set.pk]
    assert jobs.reveal_due_test_sets.apply().get() == []  # a second tick: nothing
    private_test_set.refresh_from_db()
    assert private_test_set.revealed
    key = f"testset:{private_test_set.pk}:revealed"
    assert Notification.objects.filter(key=key, recipient=participant).exists()
    assert notification_jobs.mail_notifications.apply(args=[key]).get() == 1
    assert [m.to for m in mail.outbox] == [["alice@example.org"]]
    assert "are now public" in mail.outbox[0].subject


def test_without_the_opt_in_nothing_is_revealed(phase, private_test_set, test_set):
    Phase.objects.filter(pk=phase.pk).update(
        closes_at=timezone.now() - timedelta(seconds=1)
    )
    TestSet.objects.filter(pk=test_set.pk).update(reveal_at_phase_end=True)  # public
    assert jobs.reveal_due_test_sets.apply().get() == []
    private_test_set.refresh_from_db()
    assert not private_test_set.revealed
