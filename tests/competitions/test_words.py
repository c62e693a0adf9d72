"""Words participants read (Django's client): a refusal is shown as an error, a
one-system table says "system", a run number is never read as a rank."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.competitions.runs import stored_run

pytestmark = pytest.mark.django_db


def test_a_refused_final_choice_is_an_error_not_information(
    phase, test_set, team, participant
):
    first = stored_run(phase, team, participant, {test_set: 0.4}, minutes_ago=9)
    second = stored_run(phase, team, participant, {test_set: 0.5}, minutes_ago=5)
    client = Client()
    client.force_login(participant)
    ok = client.post(
        reverse("competitions:run-final", args=[first.pk]), {"final": "1"}, follow=True
    ).content.decode()
    assert '<li class="success"><span role="status">' in ok
    refused = client.post(
        reverse("competitions:run-final", args=[second.pk]),
        {"final": "1"},
        follow=True,
    ).content.decode()
    item = refused.split('<ul class="messages">')[1].split("</ul>")[0]
    assert item.startswith('<li class="error"><span role="alert">'), item
    assert "at most 1 final run" in item
