"""The demo task ranked in two tracks: created once, runs in both tracks scored
and ranked within each track."""

from __future__ import annotations

import io

import pytest

from evalhub.competitions import jobs
from evalhub.competitions.models import SharedTask, Submission
from evalhub.competitions.services.boards import leaderboard
from evalhub.competitions.services.data import demo, tracks

pytestmark = pytest.mark.django_db


def test_the_tracks_demo_runs_end_to_end(isolated_storage):
    task = demo.seed_tracks_demo()
    assert task is not None and task.slug == demo.TRACKS_DEMO_SLUG
    assert demo.seed_tracks_demo() is None  # idempotent
    phase = task.phases.get()
    assert phase.limits_per_track
    closed, open_ = tracks.phase_tracks(phase)
    assert (closed.slug, open_.slug) == ("closed", "open")
    runs = list(Submission.objects.filter(phase=phase))
    assert {r.track.slug for r in runs} == {"closed", "open"}
    for run in runs:
        jobs.score_submission(run.pk)
    test_set = phase.test_sets.get()
    closed_board = leaderboard.board(test_set=test_set, track=closed)
    open_board = leaderboard.board(test_set=test_set, track=open_)
    assert len(closed_board.rows) == 3 and len(open_board.rows) == 2
    assert {r.track for r in closed_board.rows} == {"closed"}
    assert SharedTask.objects.filter(slug__startswith="demo-").count() == 1


def test_seed_demo_command_adds_the_tracks_demo(isolated_storage):
    from django.core.management import call_command

    out = io.StringIO()
    call_command("seed_demo", "--no-runs", stdout=out)
    assert f"created {demo.TRACKS_DEMO_SLUG}" in out.getvalue()
    assert SharedTask.objects.filter(slug=demo.TRACKS_DEMO_SLUG).exists()
