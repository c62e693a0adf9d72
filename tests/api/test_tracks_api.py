"""Tracks through the API and ``evalhub submit --track``: the field, the clear
errors for a missing or unknown track, the phase's tracks in the task detail, and
the run's track in its status."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from evalhub.competitions.models import Submission
from evalhub.competitions.services.data import tracks
from tests.api.test_cli import _evalhub, _submit_args

RUNS = "/api/tasks/bucc-test/phases/evaluation/runs"


@pytest.fixture
def two_tracks(phase):  # noqa: ANN001, ANN201
    return (
        tracks.save_track(
            phase=phase, slug="closed", name="Closed", description="training data only"
        ),
        tracks.save_track(phase=phase, slug="open", name="Open"),
    )


def _post(client, secret, data, **fields):  # noqa: ANN001, ANN003, ANN202
    return client.post(
        RUNS,
        {"method_name": "m", **fields, "file": SimpleUploadedFile("run.tsv", data)},
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    )


@pytest.mark.django_db
def test_api_submit_declares_the_track(
    client, tokens, team, phase, test_set, demo_run, two_tracks
):
    response = _post(client, tokens["participant"], demo_run, track="open")
    assert response.status_code == 201, response.content
    assert response.json()["track"] == "open"
    assert Submission.objects.get().track == two_tracks[1]
    anonymous = client.get(f"/api/runs/{response.json()['id']}").json()
    assert anonymous["track"] == "open"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({}, "has tracks: choose one of closed, open"),
        ({"track": "nope"}, "has no track 'nope': choose one of closed, open"),
    ],
)
def test_api_missing_or_unknown_track_is_403_with_the_choices(
    client, tokens, team, phase, test_set, demo_run, two_tracks, fields, message
):
    response = _post(client, tokens["participant"], demo_run, **fields)
    assert response.status_code == 403
    assert message in response.json()["detail"]
    assert not Submission.objects.exists()


@pytest.mark.django_db
def test_task_detail_lists_the_tracks(client, task, phase, test_set, two_tracks):
    phase.limits_per_track = True
    phase.save()
    detail = client.get("/api/tasks/bucc-test").json()
    (phase_out,) = detail["phases"]
    assert phase_out["limits_per_track"] is True
    assert phase_out["tracks"] == [
        {"slug": "closed", "name": "Closed", "description": "training data only"},
        {"slug": "open", "name": "Open", "description": ""},
    ]


@pytest.mark.django_db(transaction=True)
def test_cli_submit_with_track_and_the_error_without(
    live_server, tokens, team, phase, test_set, demo_run, two_tracks, tmp_path
):
    run_file = tmp_path / "run.tsv"
    run_file.write_bytes(demo_run)
    missing = _evalhub(
        *_submit_args(live_server.url, run_file), token=tokens["participant"]
    )
    assert missing.returncode == 3, missing.stderr
    assert "choose one of closed, open" in missing.stderr
    done = _evalhub(
        *_submit_args(live_server.url, run_file, "--track", "closed", "--json"),
        token=tokens["participant"],
    )
    assert done.returncode == 0, done.stderr
    assert Submission.objects.get().track.slug == "closed"


@pytest.mark.django_db
def test_leaderboard_api_and_exports_per_track(
    client, tokens, team, phase, test_set, demo_run, two_tracks
):
    from evalhub.competitions import jobs

    response = _post(client, tokens["participant"], demo_run, track="open")
    jobs.score_submission(response.json()["id"])
    board = "/api/tasks/bucc-test/phases/evaluation/leaderboard"
    everything = client.get(board).json()
    assert [(b["test_set"], b["track"]) for b in everything["test_sets"]] == [
        ("public", "closed"),
        ("public", "open"),
    ]
    assert [len(b["rows"]) for b in everything["test_sets"]] == [0, 1]
    only_open = client.get(board, {"track": "open"}).json()
    assert [b["track"] for b in only_open["test_sets"]] == ["open"]
    assert client.get(board, {"track": "nope"}).status_code == 404
    csv_url = "/exports/tasks/bucc-test/evaluation/leaderboard.csv"
    closed = client.get(csv_url, {"track": "closed"})
    assert closed.status_code == 200
    assert "closed-leaderboard.csv" in closed["Content-Disposition"]
    assert closed.content.decode().strip().count("\n") == 0  # the header only
    assert client.get(csv_url, {"track": "nope"}).status_code == 404
