"""Tracks (services and model): a run declares one exactly when its phase has
tracks, with clear errors; the track is fixed once scoring starts; limits per track
or shared; final runs per track; organisers' changes (slug, order, delete)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from evalhub.competitions import jobs
from evalhub.competitions.models import Submission, Track, TrackFixed
from evalhub.competitions.services.data import tracks
from evalhub.competitions.services.runs import finals, submit

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_tracks(phase):  # noqa: ANN001, ANN201
    closed = tracks.save_track(
        phase=phase, slug="closed", name="Closed", description="only the training data"
    )
    open_ = tracks.save_track(phase=phase, slug="open", name="Open")
    return closed, open_


def test_phase_tracks_are_listed_in_their_order(phase, two_tracks):
    closed, open_ = two_tracks
    assert tracks.phase_tracks(phase) == [closed, open_]
    tracks.move_track(track=open_, up=True)
    assert tracks.phase_tracks(phase) == [open_, closed]


def test_a_run_declares_its_track(submit_run, demo_run, two_tracks):
    sub = submit_run(demo_run, track="open")
    assert sub.track == two_tracks[1]


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("", "has tracks: choose one of closed, open"),
        ("constrained", "has no track 'constrained': choose one of closed, open"),
    ],
)
def test_a_missing_or_unknown_track_is_refused_clearly(
    submit_run, demo_run, two_tracks, given, message
):
    with pytest.raises(submit.SubmissionRefused, match=message):
        submit_run(demo_run, track=given)
    assert not Submission.objects.exists()


def test_a_phase_without_tracks_refuses_a_track(submit_run, demo_run):
    with pytest.raises(submit.SubmissionRefused, match="has no tracks"):
        submit_run(demo_run, track="open")
    assert submit_run(demo_run).track is None


def test_the_track_cannot_change_once_scoring_started(submit_run, demo_run, two_tracks):
    closed, open_ = two_tracks
    sub = submit_run(demo_run, track="closed")
    tracks.change_track(submission=sub, track=open_)  # still queued: allowed
    assert sub.track == open_
    jobs.score_submission(sub.pk)
    sub.refresh_from_db()
    assert sub.status == Submission.Status.SCORED
    with pytest.raises(tracks.TrackError, match="already being scored"):
        tracks.change_track(submission=sub, track=closed)
    sub.track = closed
    with pytest.raises(TrackFixed, match="can no longer change"):
        sub.save()
    assert Submission.objects.get(pk=sub.pk).track == open_
    # Saving anything else still works.
    fresh = Submission.objects.get(pk=sub.pk)
    fresh.method_name = "renamed"
    fresh.save()


def test_shared_limits_count_every_track(submit_run, demo_run, phase, two_tracks):
    now = timezone.now().replace(hour=12)
    for i in range(phase.daily_limit):
        submit_run(demo_run, track="closed" if i % 2 else "open", now=now)
    with pytest.raises(submit.SubmissionRefused, match="runs for today;"):
        submit_run(demo_run, track="closed", now=now)


def test_limits_per_track_count_each_track_apart(
    submit_run, demo_run, phase, team, two_tracks
):
    phase.limits_per_track = True
    phase.save()
    now = timezone.now().replace(hour=12)
    for _ in range(phase.daily_limit):
        submit_run(demo_run, track="closed", now=now)
    with pytest.raises(
        submit.SubmissionRefused, match="runs for today in track 'closed'"
    ):
        submit_run(demo_run, track="closed", now=now)
    submit_run(demo_run, track="open", now=now)  # the other track has its own
    closed, open_ = two_tracks
    assert submit.allowance(phase=phase, team=team, now=now, track=closed).left == 0
    assert submit.allowance(phase=phase, team=team, now=now, track=open_).left == 2


def test_final_runs_are_limited_per_track(
    submit_run, demo_run, phase, participant, two_tracks
):
    runs = [submit_run(demo_run, track=t) for t in ("closed", "closed", "open")]
    finals.set_final(submission=runs[0], user=participant, final=True)
    with pytest.raises(finals.ChoiceRefused, match="in track 'closed' of Evaluation"):
        finals.set_final(submission=runs[1], user=participant, final=True)
    # One final run in the other track is still allowed.
    assert finals.set_final(submission=runs[2], user=participant, final=True)
    assert Submission.objects.filter(final_selected=True).count() == 2


def test_a_track_with_runs_cannot_be_deleted_or_renamed(
    submit_run, demo_run, phase, two_tracks
):
    closed, open_ = two_tracks
    submit_run(demo_run, track="closed")
    with pytest.raises(tracks.TrackError, match="1 run use track 'closed'"):
        tracks.delete_track(track=closed)
    with pytest.raises(tracks.TrackError, match="slug cannot change"):
        tracks.save_track(phase=phase, slug="c", name="C", track=closed)
    tracks.save_track(phase=phase, slug="closed", name="Closed (renamed)", track=closed)
    tracks.delete_track(track=open_)
    assert list(Track.objects.values_list("slug", flat=True)) == ["closed"]


def test_duplicate_slugs_are_refused(phase, two_tracks):
    with pytest.raises(tracks.TrackError, match="already has a track 'open'"):
        tracks.save_track(phase=phase, slug="open", name="Again")


def test_deleting_the_task_deletes_its_tracks_and_runs(
    task, submit_run, demo_run, two_tracks
):
    submit_run(demo_run, track="open")
    task.delete()
    assert not Track.objects.exists() and not Submission.objects.exists()


# --- pages --------------------------------------------------------------------------
def test_the_submit_form_asks_for_a_track_only_when_the_phase_has_tracks(
    client, participant, team, phase, test_set, demo_run
):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.urls import reverse

    client.force_login(participant)
    url = reverse("competitions:run-submit", args=["bucc-test", "evaluation"])
    assert b'name="track"' not in client.get(url).content
    tracks.save_track(phase=phase, slug="closed", name="Closed", description="c")
    tracks.save_track(phase=phase, slug="open", name="Open")
    page = client.get(url).content
    assert b'<select name="track"' in page and b"Closed: c" in page
    missing = client.post(
        url, {"method_name": "m", "run": SimpleUploadedFile("run.tsv", demo_run)}
    )
    assert missing.status_code == 422 and b"This field is required" in missing.content
    done = client.post(
        url,
        {
            "method_name": "m",
            "track": "open",
            "run": SimpleUploadedFile("run.tsv", demo_run),
        },
    )
    assert done.status_code == 302
    sub = Submission.objects.get()
    assert sub.track.slug == "open"
    run_page = client.get(sub.get_absolute_url()).content
    assert b"Open track" in run_page
    task_page = client.get(reverse("competitions:task-detail", args=["bucc-test"]))
    assert b"<code>closed</code>" in task_page.content
