"""Hidden runs and the statistics: a hidden run leaves the significance matrix and
chart (filtered out of a stale matrix until the worker recomputes it), and hiding
changes no Ladder decision."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.urls import reverse

from evalhub.competitions.models import Submission
from evalhub.competitions.services.boards import (
    access,
    boardcache,
    leaderboard,
    selection,
    visibility,
)
from evalhub.rankings import jobs
from tests.rankings.ladder_stats import stats  # noqa: F401  (fixture)

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
    boardcache.invalidate(test_set_id=test_set.pk, refresh_statistics=False)
    # Stale statistics (the refresh has not run yet): filtered, no chart.
    runs = [r["run"] for r in client.get(significance).json()["runs"]]
    assert second.pk not in runs and other.pk in runs
    assert client.get(chart).status_code == 404
    client.force_login(organiser)
    assert client.get(chart).status_code == 200
    client.logout()
    # Recomputed: the Ladder's decisions do not depend on what is hidden now, so
    # the team's released run is still the hidden one and the team has no public
    # row (hiding never releases another run); the hidden run leaves the matrix.
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    key = selection.team_key(first.team_id, False)
    assert visibility.released(test_set)[key] == second.pk
    matrix_runs = set(test_set.statistics.data["matrix"]["runs"])
    assert second.pk not in matrix_runs and first.pk not in matrix_runs
    board = leaderboard.board(test_set=test_set)
    assert [r.submission_id for r in board.rows if r.team == first.team.name] == []
    assert all(r.band is not None for r in board.rows)
    assert client.get(chart).status_code == 200
    # Neither run's public score is shown to others; the team keeps seeing the
    # score the Ladder released to it, and no other.
    assert not access.can_see_run_scores(AnonymousUser(), second, test_set)
    assert not access.can_see_run_scores(participant, first, test_set)
    assert access.can_see_run_scores(participant, second, test_set)
