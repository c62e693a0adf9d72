"""A scored run's scores part of its page, kept per audience
(``services/boards/run_scores.py``), through web requests: each viewer gets what
the page rendered whole gives them, whichever audience's copy was kept first, and
every change of what it shows shows at once."""

from __future__ import annotations

import functools
import re

import pytest
from django.core.cache import cache
from django.urls import reverse

from evalhub.competitions.models import Artefact
from evalhub.competitions.services.data import datasets
from evalhub.competitions.services.runs import hiding
from tests.rankings.helpers import rescored

pytestmark = pytest.mark.django_db

PRIVATE = "private until the organisers reveal"
ORGANISERS_ONLY = "(organisers only)"
VIEWERS = ("organiser", "team", "outsider", "anonymous")


@pytest.fixture
def run(submit_run, demo_run, test_set, private_test_set):  # noqa: ANN001, ANN201
    return rescored(submit_run(demo_run, method="method-x"))


@pytest.fixture
def users(participant, outsider, organiser):  # noqa: ANN001, ANN201
    return {
        "organiser": organiser,
        "team": participant,
        "outsider": outsider,
        "anonymous": None,
    }


def _scores(client, run, user) -> str:  # noqa: ANN001
    """The scores part of ``run``'s page as ``user`` (None: anonymous) gets it."""
    client.logout()
    if user is not None:
        client.force_login(user)
    response = client.get(reverse("competitions:run-detail", args=[run.pk]))
    assert response.status_code == 200
    page = response.content.decode()
    start = page.find('<section class="evaluation">')
    assert start > 0, page
    return page[start : page.index("</main>")]


def test_each_audience_gets_its_own_scores_whoever_came_first(client, run, users):  # noqa: ANN001
    alone = {}
    for name in VIEWERS:
        cache.clear()  # the page rendered whole for this viewer
        alone[name] = _scores(client, run, users[name])
    organiser = alone["organiser"]
    assert PRIVATE not in organiser and ORGANISERS_ONLY in organiser
    assert organiser.count('class="primary"') == 2  # both test sets' scores
    for name in ("team", "outsider", "anonymous"):
        assert PRIVATE in alone[name] and ORGANISERS_ONLY not in alone[name]
        assert alone[name].count('class="primary"') == 1
    for first in VIEWERS:
        cache.clear()
        for name in (first, *VIEWERS, first):
            assert _scores(client, run, users[name]) == alone[name], (first, name)


def test_a_hidden_run_keeps_its_scores_for_its_team_and_the_organisers(
    client, run, users, participant
):  # noqa: ANN001
    for name in VIEWERS:
        _scores(client, run, users[name])  # every audience's copy kept
    hiding.set_hidden(submission=run, user=participant, hidden=True)
    team = _scores(client, run, participant)
    # Hidden runs are never ranked publicly: its team sees that at once.
    assert "Not on the" in team and "Rank 1" not in team
    assert team.count('class="primary"') == 1
    organiser = _scores(client, run, users["organiser"])
    assert organiser.count('class="primary"') == 2
    client.force_login(users["outsider"])
    url = reverse("competitions:run-detail", args=[run.pk])
    assert client.get(url).status_code == 404


def test_changes_show_at_once(
    client,
    run,
    users,
    submit_run,
    demo_run,
    other_team,
    outsider,
    test_set,
    private_test_set,
    django_capture_on_commit_callbacks,
):  # noqa: ANN001
    """Each change committed (its callbacks run, as a commit runs them: the
    boards' versions bumped) after every audience's copy was kept."""
    committed = functools.partial(django_capture_on_commit_callbacks, execute=True)
    for name in VIEWERS:
        assert "of 1 on the" in _scores(client, run, users[name])
    # Another team's run scored: the run's rank is now of two.
    other = submit_run(demo_run, user=outsider, method="other")
    with committed():
        rescored(other)
    for name in VIEWERS:
        assert "of 2 on the" in _scores(client, run, users[name])
    # The private test set revealed: everyone sees its scores.
    with committed():
        datasets.reveal(test_set=private_test_set)
    for name in VIEWERS:
        page = _scores(client, run, users[name])
        assert PRIVATE not in page and page.count('class="primary"') == 2
    # A test set renamed (the admin saves it).
    test_set.name = "Renamed public set"
    with committed():
        test_set.save()
    for name in VIEWERS:
        assert "<h2>Renamed public set</h2>" in _scores(client, run, users[name])
    # A figure redrawn under a new title (as the scoring job saves it), then one
    # taken away: no board changes, the run's figures do.
    figure = Artefact.objects.filter(evaluation__submission=run).first()
    figure.title = "A redrawn curve"
    figure.save()
    for name in VIEWERS:
        assert "A redrawn curve" in _scores(client, run, users[name])
    figure.delete()
    for name in VIEWERS:
        assert "A redrawn curve" not in _scores(client, run, users[name])
    assert re.search(r"<img src=\"/runs/\d+/plots/", _scores(client, run, None))
