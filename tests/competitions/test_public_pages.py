"""The public pages' summaries: home cards (state, deadline, counts, leader), the
meta description and link preview of task and leaderboard pages, the favicon.
The leader and counts are what the public may see: never a hidden run, never a
score on an unrevealed private test set."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from evalhub.competitions.models import Phase, SharedTask, TestSet
from evalhub.competitions.services import teams
from evalhub.competitions.services.boards import home
from tests.rankings.helpers import scored

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_runs(phase, test_set, participant, team, bucc_demo, django_user_model):  # noqa: ANN001, ANN201
    """Alpha's best run (the demo's best) and a rival's weaker one."""
    # Neither run's own figures are read: the cards and boards only.
    best = scored(
        phase, participant, bucc_demo.runs[0][2]["test"], "dictionary", figures=False
    )
    rival = django_user_model.objects.create_user("rival")
    teams.register(task=phase.task, user=rival, new_team_name="Rival")
    weaker = scored(phase, rival, bucc_demo.runs[1][2]["test"], "roots", figures=False)
    return best, weaker


def test_home_card_shows_the_open_phase_counts_and_public_leader(client, two_runs):  # noqa: ANN001
    best, _ = two_runs
    response = client.get(reverse("competitions:task-list"))
    card = response.content.decode()
    assert "Open</span>" in card and "open until" in card
    assert "UTC" in card  # the deadline's hover title
    assert "<dt>Teams</dt><dd>2</dd>" in card
    assert "<dt>Scored runs</dt><dd>2</dd>" in card
    assert "Leader: <strong>Alpha</strong>" in card


def test_a_hidden_run_is_neither_leader_nor_counted(client, two_runs):  # noqa: ANN001
    best, _ = two_runs
    best.hidden = True
    best.save(update_fields=["hidden"])
    from evalhub.competitions.services.boards import boardcache

    boardcache.invalidate(test_set_id=best.evaluations.get().test_set_id)
    card = client.get(reverse("competitions:task-list")).content.decode()
    assert "Leader: <strong>Rival</strong>" in card
    assert "<dt>Scored runs</dt><dd>1</dd>" in card


def test_no_leader_from_an_unrevealed_private_test_set(phase, test_set, two_runs):  # noqa: ANN001
    TestSet.objects.filter(pk=test_set.pk).update(visibility="private", revealed=False)
    phase = Phase.objects.get(pk=phase.pk)
    assert home.phase_leader(phase) is None
    TestSet.objects.filter(pk=test_set.pk).update(revealed=True)
    phase = Phase.objects.get(pk=phase.pk)
    leader = home.phase_leader(phase)
    assert leader is not None and leader.team == "Alpha"


def test_open_tasks_come_first_then_upcoming_then_closed(task, phase, organiser):  # noqa: ANN001
    now = timezone.now()
    for slug, opens, closes in (
        ("closed-task", now - timedelta(days=9), now - timedelta(days=2)),
        ("upcoming-task", now + timedelta(days=2), now + timedelta(days=9)),
    ):
        other = SharedTask.objects.create(
            slug=slug,
            title=slug,
            task_type=task.task_type,
            state=SharedTask.State.PUBLISHED,
        )
        Phase.objects.create(
            task=other, slug="p", name="P", opens_at=opens, closes_at=closes
        )
    cards = home.task_cards(tasks=SharedTask.objects.all())
    assert [(c.task.slug, c.state) for c in cards] == [
        ("bucc-test", "open"),
        ("upcoming-task", "upcoming"),
        ("closed-task", "closed"),
    ]


def test_meta_descriptions_are_plain_escaped_text(client, task, phase, two_runs):  # noqa: ANN001
    task.description = 'Find *terms* "here" <script>alert(1)</script> & more.'
    task.save(update_fields=["description"])
    page = client.get(reverse("competitions:task-detail", args=[task.slug]))
    html = page.content.decode()
    assert (
        '<meta name="description" content="Find terms &quot;here&quot; &amp; more.">'
        in html
    )
    assert 'property="og:title"' in html and "alert(1)" not in html
    board = client.get(
        reverse("competitions:leaderboard-detail", args=[task.slug, phase.slug])
    ).content.decode()
    assert '<meta property="og:description" content="Alpha leads with AP' in board


def test_favicon_ico_is_answered(client):  # noqa: ANN001
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"].endswith("favicon.svg")
