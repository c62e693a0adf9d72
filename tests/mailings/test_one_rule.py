"""One rule per team filter: the console's roster (the participation app) and the
message composer (the mailings app) pick the same approved teams for every filter,
because both ask the recipient filters of ``competitions/services/recipients.py``.
The world is built so that the roster's former rules would disagree: Gamma has no
run but answered a fact-sheet question and linked a paper (the former roster's
"fact sheet not complete" and "no paper" read its runs' columns)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evalhub.competitions.services import recipients
from evalhub.factsheets.models import Answer, PaperLink, Question
from tests.participation.helpers import accept, set_terms

pytestmark = pytest.mark.django_db


@pytest.fixture
def owing(world, task, phase, organiser, participant, outsider):  # noqa: ANN001, ANN201
    """World (tests/mailings/conftest.py) plus: two required fact-sheet
    questions, Gamma answered one of them and linked a paper without a run;
    terms in force that alice and mallory accepted."""
    data = Question.objects.create(
        task=task, key="data", label="Data used?", kind="yes_no", required=True
    )
    Question.objects.create(
        task=task, key="size", label="Parameters", kind="number", required=True
    )
    gamma = world["gamma"]
    Answer.objects.create(
        question=data, phase=phase, team=gamma, method_name="g", value="yes"
    )
    PaperLink.objects.create(
        phase=phase, team=gamma, method_name="g", title="Gamma at BUCC"
    )
    set_terms(organiser, task, "Research only.")
    for user in (participant, outsider):
        assert accept(user, task, 1).status_code == 302
    return world


def _roster(client, task, key: str) -> tuple[list[str], list[str]]:  # noqa: ANN001
    """The console's Participants page filtered by ``key``: (approved teams,
    teams awaiting approval)."""
    response = client.get(
        reverse("console:participants", args=[task.slug]), {"filter": key}
    )
    assert response.status_code == 200
    assert response.context["filter"] == key, f"the roster has no filter {key!r}"
    rows = response.context["rows"]
    approved = sorted(r.name for r in rows if r.status == "approved")
    return approved, sorted(r.name for r in rows if r.status == "pending")


def _composer(client, task, key: str) -> list[str]:  # noqa: ANN001
    """The teams the message composer's preview says a message to ``key``
    reaches, checked against the count it prints."""
    response = client.post(
        reverse("console:message-create", args=[task.slug]),
        {"subject": "Hello", "body": "Hello.", "audience": key},
    )
    assert response.status_code == 200
    teams = response.context["preview"].audience.teams
    count = f"of {len(teams)} team{'' if len(teams) == 1 else 's'}"
    assert count in response.content.decode()
    return sorted(t.name for t in teams)


def test_the_roster_and_a_message_pick_the_same_teams(client, owing, task, organiser):
    client.force_login(organiser)
    keys = [f.key for f in recipients.filters()]
    assert {"no-final-run", "no-fact-sheet", "no-paper-link"} <= set(keys)
    assert "terms-not-accepted" in keys
    picked = {}
    for key in keys:
        # "All approved teams" is the roster's every team, awaiting ones aside.
        approved, _pending = _roster(client, task, "" if key == recipients.ALL else key)
        assert approved == _composer(client, task, key), key
        picked[key] = approved
    # The rules themselves, so that agreeing on nothing cannot pass.
    assert picked == {
        "all": ["Alpha", "Gamma", "Mallory's"],
        "no-final-run": ["Gamma", "Mallory's"],
        "no-run": ["Gamma", "Mallory's"],
        "no-fact-sheet": ["Alpha", "Mallory's"],
        "no-paper-link": ["Alpha", "Mallory's"],
        "terms-not-accepted": ["Alpha", "Gamma"],  # bob; carol and dave
    }
    # The roster asks the same rule among the teams awaiting approval too.
    assert _roster(client, task, "no-final-run")[1] == ["Pending"]
    assert _roster(client, task, "pending") == ([], ["Pending"])
