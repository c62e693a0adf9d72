"""The interval chart colours each run with its team's colour, the one the team has
in every figure of the task (``services/team_colours.py``)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from evalhub.competitions.models import Submission
from evalhub.competitions.services.boards import team_colours
from tasks.common.plotting import PALETTE
from tests.rankings.ladder_stats import stats  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db


def test_the_interval_chart_draws_each_run_in_its_team_colour(client, stats, test_set):  # noqa: ANN001, F811
    svg = client.get(reverse("rankings:chart-detail", args=[test_set.pk, "svg"]))
    assert svg.status_code == 200
    drawn = {
        c.lower()
        for c in re.findall(
            r"(?:fill|stroke): ?(#[0-9a-fA-F]{6})",
            b"".join(svg.streaming_content).decode(),
        )
    } & {c.lower() for c in PALETTE}
    runs = test_set.statistics.data["matrix"]["runs"]
    teams = set(
        Submission.objects.filter(pk__in=runs).values_list("team_id", flat=True)
    )
    colours = {
        t: s.colour
        for t, s in team_colours.team_styles(task=test_set.phase.task).items()
    }
    assert len(teams) >= 2
    assert drawn == {colours[t].lower() for t in teams}
