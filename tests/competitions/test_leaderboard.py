from __future__ import annotations

import pytest

from evalhub.competitions.models import Score
from evalhub.competitions.services import teams
from evalhub.competitions.services.boards import boardcache, leaderboard
from tests.competitions.runs import stored_run

pytestmark = pytest.mark.django_db


def _scored(phase, team, user, test_set, ap, *, minutes_ago):  # noqa: ANN001, ANN202
    return stored_run(
        phase, team, user, {test_set: ap}, minutes_ago=minutes_ago, method=f"ap={ap}"
    )


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
    boardcache.invalidate(test_set_id=test_set.pk)
    assert len(leaderboard.board(test_set=test_set).rows) == 1


def test_overall_ranking_averages_counted_visible_test_sets(
    task, phase, test_set, private_test_set, django_user_model, organiser
):
    from django.contrib.auth.models import AnonymousUser

    from evalhub.competitions.models import TestSet
    from evalhub.competitions.services.boards import overall

    extra = TestSet.objects.create(
        phase=phase, slug="extra", name="Extra", counts_for_ranking=False
    )
    users = [django_user_model.objects.create_user(f"v{i}") for i in range(2)]
    tms = [
        teams.register(task=task, user=u, new_team_name=f"V{i}").team
        for i, u in enumerate(users)
    ]
    a = _scored(phase, tms[0], users[0], test_set, 0.8, minutes_ago=9)
    b = _scored(phase, tms[1], users[1], test_set, 0.6, minutes_ago=8)
    for sub, private_value, extra_value in ((a, 0.2, 0.0), (b, 0.9, 1.0)):
        sub.evaluations.create(
            test_set=private_test_set, scorer_version="1", gold_version=0
        )
        Score.objects.create(
            submission=sub,
            test_set=private_test_set,
            metric="ap",
            value=private_value,
            scorer_version="1",
        )
        Score.objects.create(
            submission=sub,
            test_set=extra,
            metric="ap",
            value=extra_value,
            scorer_version="1",
        )
    public_view = overall.overall(phase=phase, user=AnonymousUser())
    assert public_view.hidden == 1 and [t.slug for t in public_view.test_sets] == [
        "public"
    ]
    assert [r.team for r in public_view.rows] == ["V0", "V1"]
    organiser_view = overall.overall(phase=phase, user=organiser)
    assert organiser_view.hidden == 0
    assert [(r.team, round(r.mean, 6)) for r in organiser_view.rows] == [
        ("V1", 0.75),
        ("V0", 0.5),
    ]


def test_overall_ranking_page_and_plot(
    client, task, phase, test_set, participant, team
):
    _scored(phase, team, participant, test_set, 0.42, minutes_ago=3)
    page = client.get(f"/tasks/{task.slug}/{phase.slug}/ranking/")
    assert page.status_code == 200 and b"0.4200" in page.content
    svg = client.get(f"/tasks/{task.slug}/{phase.slug}/ranking.svg")
    assert svg["Content-Type"] == "image/svg+xml" and b"Overall ranking" in svg.content
