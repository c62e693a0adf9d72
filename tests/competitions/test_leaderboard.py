from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from evalhub.competitions.models import Score, Submission
from evalhub.competitions.services import leaderboard, teams

pytestmark = pytest.mark.django_db


def _scored(phase, team, user, test_set, ap, *, minutes_ago):  # noqa: ANN001, ANN202
    sub = Submission.objects.create(
        phase=phase,
        team=team,
        submitter=user,
        original_name="r",
        sha256="0" * 64,
        method_name=f"ap={ap}",
        status=Submission.Status.SCORED,
        created_at=timezone.now() - timedelta(minutes=minutes_ago),
    )
    sub.evaluations.create(test_set=test_set, scorer_version="1", gold_version=0)
    Score.objects.create(
        submission=sub, test_set=test_set, metric="ap", value=ap, scorer_version="1"
    )
    return sub


def test_best_run_per_team_competition_ranking_and_tie_break(
    task, phase, test_set, django_user_model
):
    users = [django_user_model.objects.create_user(f"u{i}") for i in range(4)]
    tms = [
        teams.register(task=task, user=u, new_team_name=f"T{i}").team
        for i, u in enumerate(users)
    ]
    _scored(phase, tms[0], users[0], test_set, 0.5, minutes_ago=50)
    best0 = _scored(phase, tms[0], users[0], test_set, 0.9, minutes_ago=40)
    later_tie = _scored(phase, tms[0], users[0], test_set, 0.9, minutes_ago=10)
    _scored(phase, tms[1], users[1], test_set, 0.7, minutes_ago=30)
    _scored(phase, tms[2], users[2], test_set, 0.7, minutes_ago=20)
    _scored(phase, tms[3], users[3], test_set, 0.1, minutes_ago=5)
    board = leaderboard.compute(test_set=test_set)
    assert [r.rank for r in board.rows] == [1, 2, 2, 4]
    assert [r.team for r in board.rows] == ["T0", "T1", "T2", "T3"]
    assert board.rows[0].submission_id == best0.pk != later_tie.pk


def test_cache_is_invalidated_by_a_new_score(task, phase, test_set, participant, team):
    assert leaderboard.board(test_set=test_set).rows == ()
    _scored(phase, team, participant, test_set, 0.3, minutes_ago=1)
    assert leaderboard.board(test_set=test_set).rows == ()  # still the cached board
    leaderboard.invalidate(test_set_id=test_set.pk)
    assert len(leaderboard.board(test_set=test_set).rows) == 1
