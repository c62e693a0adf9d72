"""Hidden runs and the statistics: a hidden run never climbs the Ladder, leaves the
significance matrix and chart, and is filtered out of a stale matrix until the
worker recomputes it."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evalhub.competitions.models import Submission
from evalhub.competitions.services import leaderboard
from evalhub.rankings import jobs
from evalhub.rankings.services import statistics
from tests.rankings.test_leaks import stats  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db


def _hide(sub):  # noqa: ANN001, ANN202
    Submission.objects.filter(pk=sub.pk).update(hidden=True)
    sub.refresh_from_db()


def test_a_hidden_run_leaves_the_ladder_and_the_matrix(
    client,
    stats,  # noqa: F811
    test_set,
    participant,
    organiser,
):
    first, second, other = stats
    significance = reverse("rankings:significance-export", args=[test_set.pk, "json"])
    chart = reverse("rankings:chart-detail", args=[test_set.pk, "svg"])
    assert client.get(chart).status_code == 200
    _hide(second)
    leaderboard.invalidate(test_set_id=test_set.pk, refresh_statistics=False)
    # Stale statistics (the refresh has not run yet): filtered, no chart.
    runs = [r["run"] for r in client.get(significance).json()["runs"]]
    assert second.pk not in runs and other.pk in runs
    assert client.get(chart).status_code == 404
    client.force_login(organiser)
    assert client.get(chart).status_code == 200
    client.logout()
    # Recomputed: the Ladder shows the team's first run; the hidden one is nowhere.
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    cached = statistics.cached(test_set=test_set)
    key = leaderboard.team_key(first.team_id, False)
    assert cached.shown[key] == first.pk
    matrix_runs = set(test_set.statistics.data["matrix"]["runs"])
    assert second.pk not in matrix_runs and first.pk in matrix_runs
    board = leaderboard.board(test_set=test_set)
    assert [r.submission_id for r in board.rows if r.team == first.team.name] == [
        first.pk
    ]
    assert all(r.band is not None for r in board.rows)
    assert client.get(chart).status_code == 200
    # In Ladder mode the team gets no public score for its hidden run.
    assert statistics.ladder_hides(
        submission=second, test_set=test_set, user=participant
    )
