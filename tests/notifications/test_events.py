"""Notifications emitted from the other apps' events, on the real database: who is
told, that re-delivered events tell nobody twice, and that no text carries a score."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from evalhub.competitions import jobs, signals
from evalhub.competitions.models import Submission
from evalhub.competitions.services import teams as registrations
from evalhub.competitions.services.data import datasets
from evalhub.competitions.services.runs import lifecycle, scoring, sweeper
from evalhub.notifications.models import Notification
from evalhub.notifications.services import events, notify

pytestmark = pytest.mark.django_db


def _texts(user) -> list[str]:  # noqa: ANN001
    return list(
        Notification.objects.filter(recipient=user).values_list("text", flat=True)
    )


def test_notify_is_idempotent_per_recipient_and_key(participant, outsider):
    assert notify.notify(recipients=[participant], key="k", text="t", link="/") == 1
    assert (
        notify.notify(recipients=[participant, outsider], key="k", text="t", link="/")
        == 1
    )
    assert notify.notify(recipients=[participant.pk], key="k", text="t", link="/") == 0
    assert Notification.objects.count() == 2
    assert notify.unread_count(user=participant) == 1
    assert notify.mark_all_read(user=participant) == 1
    assert notify.unread_count(user=participant) == 0
    assert notify.unread_count(user=outsider) == 1


@pytest.fixture
def no_analyses(monkeypatch):  # noqa: ANN001, ANN201
    """Scoring's on-commit work besides the signal: no job on the broker (the test
    runs the jobs itself)."""
    monkeypatch.setattr(jobs.refresh_analyses, "delay", lambda *args: None)
    monkeypatch.setattr(jobs.score_submission, "delay", lambda *args: None)


def test_a_scored_run_tells_its_team_once_without_the_score(
    submit_run,
    demo_run,
    participant,
    outsider,
    organiser,
    other_team,
    private_test_set,
    no_analyses,
    django_capture_on_commit_callbacks,
):
    run = submit_run(demo_run, method="dictionary")
    with django_capture_on_commit_callbacks(execute=True):
        assert jobs.score_submission(run.pk) == "scored"
    with django_capture_on_commit_callbacks(execute=True):
        assert jobs.score_submission(run.pk) == "skipped"  # a re-delivered job
    # A re-delivered signal of the same scoring.
    signals.submission_scored.send(
        sender=Submission, submission_id=run.pk, test_set_ids=[]
    )
    expected = f"Run {run.pk} (dictionary) on BUCC test task / Evaluation was scored."
    assert _texts(participant) == [expected]
    n = Notification.objects.get(recipient=participant)
    assert n.link == f"/runs/{run.pk}/"
    assert _texts(outsider) == [] and _texts(organiser) == []
    for score in run.scores.all():
        if score.value is not None:
            assert f"{score.value:.3f}"[:-1] not in n.text

    # Rescoring is a new event: the team is told again.
    with django_capture_on_commit_callbacks(execute=True):
        lifecycle.rescore(submission_ids=[run.pk])
    with django_capture_on_commit_callbacks(execute=True):
        assert jobs.score_submission(run.pk) == "scored"
    assert _texts(participant) == [expected, expected]


def test_a_failing_receiver_keeps_no_one_else_from_hearing_of_a_scored_run(
    submit_run,
    demo_run,
    participant,
    no_analyses,
    monkeypatch,
    caplog,
    django_capture_on_commit_callbacks,
):
    """``submission_scored`` reaches each receiver on its own: the annotations
    app's (connected before the notifications') failing, e.g. on a job it sends
    while the broker is down, is logged and the team is still told."""
    import logging

    from evalhub.annotations.models import Judgement

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("annotations unavailable")

    monkeypatch.setattr(Judgement.objects, "filter", broken)
    run = submit_run(demo_run, method="dictionary")
    with (
        caplog.at_level(logging.ERROR, logger=scoring.__name__),
        django_capture_on_commit_callbacks(execute=True),
    ):
        assert jobs.score_submission(run.pk) == "scored"
    assert len(_texts(participant)) == 1
    assert f"rescore_after_scoring failed after run {run.pk}" in caplog.text


@pytest.fixture
def lost_run(submit_run, demo_run):  # noqa: ANN001, ANN201
    """A run whose worker died on the last attempt."""
    run = submit_run(demo_run)
    old = timezone.now() - timedelta(hours=1)
    Submission.objects.filter(pk=run.pk).update(
        status=Submission.Status.SCORING,
        started_at=old,
        heartbeat_at=old,
        worker="gone",
        attempts=settings.SCORING_MAX_ATTEMPTS,
    )
    return run


def test_an_infrastructure_failure_tells_the_team_and_the_organisers(
    lost_run,
    participant,
    organiser,
    outsider,
    other_team,
    django_capture_on_commit_callbacks,
):
    with django_capture_on_commit_callbacks(execute=True):
        assert sweeper.sweep()["failed"] == 1
    with django_capture_on_commit_callbacks(execute=True):
        assert sweeper.sweep()["failed"] == 0
    events.run_failed(submission_id=lost_run.pk)  # a re-delivered signal
    assert _texts(participant) == [
        f"Run {lost_run.pk} (m) on BUCC test task / Evaluation failed "
        "(infrastructure error)."
    ]
    assert _texts(organiser) == [
        f"Run {lost_run.pk} of team Alpha on BUCC test task failed with an "
        "infrastructure error."
    ]
    assert (
        Notification.objects.get(recipient=organiser).link
        == "/tasks/bucc-test/dashboard/"
    )
    assert _texts(outsider) == []


def test_a_scorer_failure_tells_the_team_not_the_organisers_nor_the_message(
    submit_run,
    demo_run,
    participant,
    organiser,
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    run = submit_run(demo_run)

    def broken(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise RuntimeError("gold line: secret\tgeheim")

    monkeypatch.setattr(scoring, "_score_all", broken)
    with django_capture_on_commit_callbacks(execute=True):
        assert jobs.score_submission(run.pk) == "failed"
    assert _texts(participant) == [
        f"Run {run.pk} (m) on BUCC test task / Evaluation failed (scorer error)."
    ]
    assert _texts(organiser) == []


def test_registration_decisions_tell_the_team(
    task, team, participant, organiser, django_capture_on_commit_callbacks
):
    reg = team.registrations.get()
    with django_capture_on_commit_callbacks(execute=True):
        assert registrations.decide_registration(
            registration=reg, user=organiser, approve=False
        )
    with django_capture_on_commit_callbacks(execute=True):
        assert not registrations.decide_registration(
            registration=reg, user=organiser, approve=False
        )
    assert _texts(participant) == [
        "The organisers rejected the registration of team Alpha for BUCC test task."
    ]
    with pytest.raises(registrations.NotAllowed):
        registrations.decide_registration(
            registration=reg, user=participant, approve=True
        )


def test_reveal_and_gold_release_tell_registered_teams_once(
    task,
    private_test_set,
    team,
    other_team,
    participant,
    outsider,
    organiser,
    django_user_model,
    django_capture_on_commit_callbacks,
):
    stranger = django_user_model.objects.create_user("stranger")
    for _ in range(2):
        with django_capture_on_commit_callbacks(execute=True):
            datasets.reveal(test_set=private_test_set)
            datasets.release_gold(task=task)
    for user in (participant, outsider):
        assert sorted(_texts(user)) == [
            "The organisers of BUCC test task released the gold standard: per-item "
            "results are now on the run pages.",
            "The private results of Private (BUCC test task / Evaluation) are now "
            "public.",
        ]
    assert _texts(stranger) == [] and _texts(organiser) == []


def test_revealing_a_public_test_set_tells_nobody(
    test_set, team, participant, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        datasets.reveal(test_set=test_set)
    assert _texts(participant) == []


def test_a_notification_that_cannot_be_written_never_fails_the_event(
    monkeypatch, caplog
):
    from django.db import DatabaseError

    def broken(**kwargs):  # noqa: ANN003, ANN202
        raise DatabaseError("database restarting")

    monkeypatch.setattr(events, "run_scored", broken)
    signals.submission_scored.send(sender=Submission, submission_id=1, test_set_ids=[])
    assert "could not write notifications for on_submission_scored" in caplog.text


def test_the_apps_that_emit_events_never_import_notifications():
    from tests.paths import REPO_ROOT

    for app in ("competitions", "teams", "rankings", "annotations", "api"):
        for path in (REPO_ROOT / "evalhub" / app).rglob("*.py"):
            assert "evalhub.notifications" not in path.read_text(), path
