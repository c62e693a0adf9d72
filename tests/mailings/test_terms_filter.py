"""A message to the teams that have not accepted the data terms in force (issue 44,
items 1 and 3): the participation app's recipient filter, the same rule as the
roster's "not accepted the current terms" (``terms.missing``)."""

from __future__ import annotations

import pytest
from django.core import mail
from django.urls import reverse

from evalhub.mailings.models import Message
from evalhub.participation.services import roster
from tests.mailings.helpers import run_send_job
from tests.participation.helpers import accept, set_terms

pytestmark = pytest.mark.django_db


def test_the_terms_filter_reaches_the_teams_behind(
    client,
    organiser,
    task,
    world,
    participant,
    outsider,
    django_capture_on_commit_callbacks,
):
    set_terms(organiser, task, "Research only.")
    # Alpha: alice and bob accept; Mallory's: mallory does not; Gamma: carol
    # accepts, dave does not (and has no verified address).
    for user in (participant, world["bob"], world["carol"]):
        assert accept(user, task, 1).status_code == 302
    client.force_login(organiser)
    url = reverse("console:message-create", args=[task.slug])
    form = {
        "subject": "Terms",
        "body": "Please accept.",
        "audience": "terms-not-accepted",
    }
    with django_capture_on_commit_callbacks(execute=False):
        assert client.post(url, {**form, "send": "1"}).status_code == 302
    message = Message.objects.get()
    run_send_job(message.pk)
    # Gamma is behind through dave, who has no verified address: carol is mailed.
    assert sorted(a for m in mail.outbox for a in m.to) == [
        "carol@example.org",
        "mallory@example.org",
    ]
    # The roster lists pending teams too (a message reaches approved teams only).
    rows = roster.select(task=task, viewer=organiser, filter="terms-not-accepted")
    assert sorted(r.name for r in rows) == ["Gamma", "Mallory's", "Pending"]
