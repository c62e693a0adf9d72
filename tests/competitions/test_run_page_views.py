"""The run page, viewer by viewer and through a run's life, through web requests
(issue 47 made it read less: the viewer's teams once per request, the run and its
phase, task and team in one query, the fact-sheet panel without what only the
sheet's own page shows). Each viewer gets its own page, and the page follows each
change of the run: queued, scored, queued again by a rescore, hidden."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.urls import reverse

from evalhub.competitions.services.runs import hiding, lifecycle
from evalhub.factsheets.models import Question
from evalhub.factsheets.services import sheets
from evalhub.teams.services import teams as team_services
from tests.rankings.helpers import rescored

pytestmark = pytest.mark.django_db

DOWNLOAD = "download the run"
RESCORE = "Rescore this run"
CHOICES = "Your team's choices"
PRIVATE = "private until the organisers reveal"


@pytest.fixture
def run(submit_run, demo_run, test_set, private_test_set):  # noqa: ANN001, ANN201
    return submit_run(demo_run, method="method-x")


def _page(client, run) -> str:  # noqa: ANN001
    response = client.get(reverse("competitions:run-detail", args=[run.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_each_viewer_gets_its_own_run_page(
    client, run, participant, outsider, organiser
):  # noqa: ANN001
    rescored(run)
    seen = {}
    for name, user in (
        ("team", participant),
        ("outsider", outsider),
        ("organiser", organiser),
        ("anonymous", None),
        ("team again", participant),
    ):
        client.logout()
        if user is not None:
            client.force_login(user)
        seen[name] = _page(client, run)
    team, organiser_page = seen["team"], seen["organiser"]
    assert DOWNLOAD in team and CHOICES in team and RESCORE not in team
    assert DOWNLOAD in organiser_page and RESCORE in organiser_page
    assert CHOICES not in organiser_page
    for name in ("outsider", "anonymous"):
        page = seen[name]
        assert DOWNLOAD not in page and CHOICES not in page and RESCORE not in page
        assert "Edit the fact sheet" not in page
    # The private test set's scores: the organisers only, the run's team included.
    assert PRIVATE in team and PRIVATE in seen["outsider"]
    assert PRIVATE not in organiser_page
    # A viewer's page is never another's: the team's again after the others.
    assert DOWNLOAD in seen["team again"] and CHOICES in seen["team again"]


def test_joining_and_leaving_the_team_shows_and_takes_away_its_parts(
    client, run, team, participant, django_user_model
):  # noqa: ANN001
    bob = django_user_model.objects.create_user("bob", password="pw-bob-1")
    client.force_login(bob)
    assert DOWNLOAD not in _page(client, run)
    invitation = team_services.invite(team=team, inviter=participant, who="bob")
    team_services.accept(invitation=invitation, user=bob)
    page = _page(client, run)
    assert DOWNLOAD in page and CHOICES in page
    # The viewer's teams are kept in the cache for every web process: a change
    # deletes them there too, not only in this process's user objects.
    key = f"teams:member-of:{bob.pk}"
    assert cache.get(key) == frozenset({team.pk})
    assert not team_services.leave(team=team, user=bob)  # the team stays
    assert cache.get(key) is None
    page = _page(client, run)
    assert DOWNLOAD not in page and CHOICES not in page
    assert cache.get(key) == frozenset()


def test_the_page_follows_the_run_scored_rescored_and_hidden(
    client, run, participant, outsider
):  # noqa: ANN001
    client.force_login(participant)
    assert "waiting for a worker" in _page(client, run)
    client.force_login(outsider)
    queued = _page(client, run)
    assert "waiting for a worker" in queued and 'class="primary"' not in queued

    rescored(run)
    for user in (participant, outsider):
        client.force_login(user)
        page = _page(client, run)
        assert "waiting for a worker" not in page and "Status: Scored" in page
        assert 'class="primary"' in page  # the public test set's scores

    assert lifecycle.rescore(submission_ids=[run.pk]) == 1
    page = _page(client, run)
    assert "waiting for a worker" in page and 'class="primary"' not in page
    rescored(run)
    assert 'class="primary"' in _page(client, run)

    run.refresh_from_db()
    hiding.set_hidden(submission=run, user=participant, hidden=True)
    url = reverse("competitions:run-detail", args=[run.pk])
    assert client.get(url).status_code == 404  # the outsider
    client.force_login(participant)
    page = _page(client, run)
    assert '<span class="badge">hidden</span>' in page and DOWNLOAD in page


def test_the_fact_sheet_panel_follows_the_answers(
    client, run, task, participant, outsider
):  # noqa: ANN001
    Question.objects.create(
        task=task, key="arch", label="Architecture", kind="text", required=True
    )
    client.force_login(participant)
    page = _page(client, run)
    assert "Edit the fact sheet of &#x27;method-x&#x27; (1 required question" in page
    run.refresh_from_db()
    sheets.save(submission=run, user=participant, data={"arch": "a transformer"})
    page = _page(client, run)
    assert "Architecture: a transformer" in page
    assert "&#x27;method-x&#x27; (complete)" in page
    # Another team sees the answers of a public run, never its edit link.
    client.force_login(outsider)
    page = _page(client, run)
    assert "Architecture: a transformer" in page and "Edit the fact sheet" not in page
    run.refresh_from_db()
    hiding.set_hidden(submission=run, user=participant, hidden=True)
    url = reverse("competitions:run-detail", args=[run.pk])
    assert client.get(url).status_code == 404


def _reorder(client, task, test_set, order: int) -> None:  # noqa: ANN001
    """The organiser gives ``test_set`` a new place in its phase's list."""
    response = client.post(
        reverse("console:testset-edit", args=[task.slug, test_set.pk]),
        {"name": test_set.name, "slug": test_set.slug, "order": str(order)},
    )
    assert response.status_code == 302, response.content.decode()[:2000]


def test_the_run_page_lists_its_test_sets_in_the_phase_s_order(
    client, run, organiser, task, test_set, private_test_set
):  # noqa: ANN001
    """Whatever order the run's evaluations were stored in (an archive import
    stores them anew), its page follows the order the organisers gave."""
    rescored(run)
    client.force_login(organiser)
    heads = ("<h2>Public</h2>", "<h2>Private</h2>")
    for orders in ((5, 1), (1, 5), (5, 1)):
        for ts, order in zip((test_set, private_test_set), orders, strict=True):
            _reorder(client, task, ts, order)
        page = _page(client, run)
        public, private = (page.index(head) for head in heads)
        assert (public > private) == (orders[0] > orders[1]), orders
