"""The organisers' pages that list every team (the console's Participants page and
its CSV, the fact-sheet overview of a phase) read the teams' runs, members, final
runs and fact-sheet answers in a fixed number of queries, whatever the number of
teams: on a campaign of 1,000 teams they made 3,000 to 4,000 queries and took 2.5
s of CPU each (``bench/README.md``). Through web requests, counted by Django's
query capture, with 3 teams and then with 30 more."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from evalhub.competitions.models import Submission
from evalhub.factsheets.models import Answer
from tests.competitions.big_board import seed_board

pytestmark = pytest.mark.django_db


def _described(phase, teams, questions, django_user_model) -> None:  # noqa: ANN001
    """Each team with a member, its run chosen as final, and answers on its
    method's fact sheet (what each listed team's row reads)."""
    for team in teams:
        team.members.add(django_user_model.objects.create_user(f"m-{team.pk}"))
        run = Submission.objects.get(phase=phase, team=team)
        Submission.objects.filter(pk=run.pk).update(final_selected=True)
        Answer.objects.create(
            phase=phase,
            team=team,
            method_name=run.method_name,
            question=questions["approach"],
            value="neural",
        )


def _queries(client, urls: list[str]) -> list[int]:  # noqa: ANN001
    counts = []
    for url in urls:
        with CaptureQueriesContext(connection) as captured:
            answer = client.get(url)
        assert answer.status_code == 200, url
        counts.append(len(captured.captured_queries))
    return counts


def test_the_pages_listing_every_team_make_as_many_queries_for_many_teams(
    client, task, phase, test_set, organiser, questions, django_user_model
):  # noqa: ANN001
    urls = [
        reverse("console:participants", args=[task.slug]),
        reverse("console:participants-export", args=[task.slug]),
        reverse("factsheets:team-sheets", args=[task.slug, phase.slug]),
    ]
    client.force_login(organiser)
    first = seed_board(phase=phase, teams=3, prefix="Few")
    _described(phase, first, questions, django_user_model)
    client.get(urls[0])  # the session and the caches read once
    few = _queries(client, urls)
    more = seed_board(phase=phase, teams=30, prefix="More")
    _described(phase, more, questions, django_user_model)
    many = _queries(client, urls)
    assert many == few
    # ... and the rows say what each team did: its final run, its sheet's state
    page = client.get(urls[0]).content.decode()
    assert page.count("1 required answer missing") == 33
    sheets = client.get(urls[2]).content.decode()
    assert all(team.name in sheets for team in first + more)
