"""Tracks through ranking: boards per (test set, track) and the all-tracks board,
significance and bands within a track, the Ladder per track, final runs per track
on a private test set, the overall ranking, and the exports (CSV, JSON, LaTeX) per
track; hidden runs stay out of every public board of every track."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.contrib.auth.models import AnonymousUser

from evalhub.competitions.models import Submission
from evalhub.competitions.services import teams
from evalhub.competitions.services.boards import exports, leaderboard, overall
from evalhub.competitions.services.data import tracks
from evalhub.competitions.services.runs import finals, hiding, submit
from evalhub.rankings import jobs
from evalhub.rankings.models import PhaseRanking, TestSetStatistics
from evalhub.rankings.services import exports as significance
from tests.rankings.helpers import rescored, scored

pytestmark = pytest.mark.django_db
ANON = AnonymousUser()


def _scored(phase, user, data, method, track):  # noqa: ANN001, ANN202
    return scored(phase, user, data, method, track=track, figures=False)


@pytest.fixture
def two_tracks(phase):  # noqa: ANN001, ANN201
    return (
        tracks.save_track(phase=phase, slug="closed", name="Closed"),
        tracks.save_track(phase=phase, slug="open", name="Open"),
    )


@pytest.fixture
def users(task, django_user_model):  # noqa: ANN001, ANN201
    out = []
    for i in range(3):
        user = django_user_model.objects.create_user(f"tr{i}")
        teams.register(task=task, user=user, new_team_name=f"Team {i}")
        out.append(user)
    return out


@pytest.fixture
def runs(phase, test_set, bucc_demo, two_tracks, users):  # noqa: ANN001, ANN201
    """best > middle > worst (the demo's three systems). Closed: team 0 best,
    team 1 middle, team 2 worst; open: team 1 best, team 0 worst."""
    best, middle, worst = (files["test"] for _, _, files in bucc_demo.runs)
    return {
        "c0": _scored(phase, users[0], best, "dict", "closed"),
        "c1": _scored(phase, users[1], middle, "roots", "closed"),
        "c2": _scored(phase, users[2], worst, "random", "closed"),
        "o1": _scored(phase, users[1], best, "dict+web", "open"),
        "o0": _scored(phase, users[0], worst, "random+web", "open"),
    }


def _ids(board):  # noqa: ANN001, ANN202
    return [r.submission_id for r in board.rows]


def test_boards_rank_within_each_track(runs, test_set, two_tracks):
    closed, open_ = two_tracks
    c = leaderboard.board(test_set=test_set, track=closed)
    o = leaderboard.board(test_set=test_set, track=open_)
    assert _ids(c) == [runs["c0"].pk, runs["c1"].pk, runs["c2"].pk]
    assert [r.rank for r in c.rows] == [1, 2, 3]
    assert _ids(o) == [runs["o1"].pk, runs["o0"].pk]
    assert c.track == "closed" and o.track == "open"
    # The all-tracks board: every (team, track), each row marked.
    everything = leaderboard.board(test_set=test_set)
    assert set(_ids(everything)) == {s.pk for s in runs.values()}
    marks = {r.submission_id: r.track for r in everything.rows}
    assert marks[runs["o0"].pk] == "open" and marks[runs["c0"].pk] == "closed"
    assert leaderboard.track_boards(test_set=test_set, user=ANON) == [
        (closed, c),
        (open_, o),
    ]


def test_significance_and_bands_are_within_a_track(runs, test_set, two_tracks):
    closed, open_ = two_tracks
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    data = TestSetStatistics.objects.get(test_set=test_set).data
    assert data["tracks"][str(closed.pk)]["runs"] == _ids(
        leaderboard.board(test_set=test_set, track=closed)
    )
    assert data["tracks"][str(open_.pk)]["runs"] == [runs["o1"].pk, runs["o0"].pk]
    # The demo systems are far apart: bands 1, 2, 3 in closed, 1, 2 in open.
    c = leaderboard.board(test_set=test_set, track=closed)
    o = leaderboard.board(test_set=test_set, track=open_)
    assert [r.band for r in c.rows] == [1, 2, 3]
    assert [r.band for r in o.rows] == [1, 2]
    page = significance.significance(test_set=test_set, user=ANON, track_slug="open")
    assert [r.submission_id for r in page["runs"]] == [runs["o1"].pk, runs["o0"].pk]
    assert len(page["cells"]) == 2
    assert significance.as_json(page)["track"] == "open"
    whole = significance.significance(test_set=test_set, user=ANON)
    assert len(whole["runs"]) == 5 and {r.track for r in whole["runs"]} == {
        "Closed",
        "Open",
    }


def test_the_ladder_releases_a_run_per_team_and_track(
    phase, test_set, bucc_demo, two_tracks, users
):
    PhaseRanking.objects.create(phase=phase, ladder=True)
    best, middle, worst = (files["test"] for _, _, files in bucc_demo.runs)
    c_first = _scored(phase, users[0], middle, "a", "closed")
    c_better = _scored(phase, users[0], best, "b", "closed")
    o_only = _scored(phase, users[0], worst, "c", "open")
    jobs.refresh_statistics(test_set.pk)
    closed, open_ = two_tracks
    assert _ids(leaderboard.board(test_set=test_set, track=closed)) == [c_better.pk]
    # Counted per team only, the open run would have been held back.
    assert _ids(leaderboard.board(test_set=test_set, track=open_)) == [o_only.pk]
    assert c_first.pk not in _ids(leaderboard.board(test_set=test_set))


def test_final_runs_per_track_on_a_private_test_set(
    private_test_set, runs, phase, two_tracks, users
):
    closed, open_ = two_tracks
    phase.max_final_runs = 1
    phase.save()
    extra = _scored(phase, users[0], runs["c2"].file.read(), "late", "closed")
    finals.set_final(submission=extra, user=users[0], final=True)
    # Team 0 chose its late closed run; in open it falls back to its best public.
    closed_board = leaderboard.board(test_set=private_test_set, track=closed)
    assert extra.pk in _ids(closed_board) and runs["c0"].pk not in _ids(closed_board)
    open_board = leaderboard.board(test_set=private_test_set, track=open_)
    assert runs["o0"].pk in _ids(open_board)


def test_hidden_runs_stay_out_of_every_public_board(
    runs, test_set, two_tracks, users, organiser
):
    closed, open_ = two_tracks
    hiding.set_hidden(submission=runs["o1"], user=users[1], hidden=True)
    for track in (open_, None):
        public = leaderboard.board_for(test_set=test_set, user=ANON, track=track)
        assert runs["o1"].pk not in _ids(public)
        mine = leaderboard.board_for(test_set=test_set, user=organiser, track=track)
        assert runs["o1"].pk in _ids(mine)
    assert [r.rank for r in leaderboard.board(test_set=test_set, track=open_).rows] == [
        1
    ]
    csv_text = exports.leaderboard_csv(phase=test_set.phase, user=ANON)
    assert f",{runs['o1'].pk}," not in csv_text


def test_exports_per_track(runs, phase, test_set, two_tracks):
    closed, open_ = two_tracks
    rows = list(
        csv.DictReader(io.StringIO(exports.leaderboard_csv(phase=phase, user=ANON)))
    )
    assert [(r["track"], r["rank"], r["run"]) for r in rows] == [
        ("closed", "1", str(runs["c0"].pk)),
        ("closed", "2", str(runs["c1"].pk)),
        ("closed", "3", str(runs["c2"].pk)),
        ("open", "1", str(runs["o1"].pk)),
        ("open", "2", str(runs["o0"].pk)),
    ]
    only_open = list(
        csv.DictReader(
            io.StringIO(exports.leaderboard_csv(phase=phase, user=ANON, track=open_))
        )
    )
    assert [r["run"] for r in only_open] == [str(runs["o1"].pk), str(runs["o0"].pk)]
    data = json.loads(exports.leaderboard_json(phase=phase, user=ANON))
    assert [(b["test_set"], b["track"]) for b in data["test_sets"]] == [
        ("public", "closed"),
        ("public", "open"),
    ]
    assert [r["run"] for r in data["test_sets"][1]["rows"]] == [
        runs["o1"].pk,
        runs["o0"].pk,
    ]
    latex = exports.leaderboard_latex(phase=phase, user=ANON)
    assert latex.count("\\begin{table}") == 2
    assert (
        "Public, Closed track." in latex
        and "tab:bucc-test-evaluation-public-open" in latex
    )
    one = exports.leaderboard_latex(phase=phase, user=ANON, track=closed)
    assert one.count("\\begin{table}") == 1 and "Open track" not in one


def test_overall_ranking_per_track(runs, phase, test_set, two_tracks):
    closed, open_ = two_tracks
    ranking = overall.overall(phase=phase, user=ANON, track=open_)
    assert [r.submission_id for r in ranking.rows] == [runs["o1"].pk, runs["o0"].pk]
    everything = overall.overall(phase=phase, user=ANON)
    assert len(everything.rows) == 5
    assert {r.track for r in everything.rows} == {"Closed", "Open"}


def test_a_phase_without_tracks_keeps_its_boards_and_exports(
    phase, test_set, bucc_demo, users
):
    best = bucc_demo.runs[0][2]["test"]
    sub = rescored(
        submit.submit_run(
            phase=phase, user=users[0], filename="r", data=best, method_name="m"
        ),
        figures=False,
    )
    board = leaderboard.board(test_set=test_set)
    assert _ids(board) == [sub.pk] and board.rows[0].track == ""
    header = exports.leaderboard_csv(phase=phase, user=ANON).splitlines()[0]
    assert "track" not in header
    assert Submission.objects.get().track is None
