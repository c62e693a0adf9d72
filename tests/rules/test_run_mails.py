"""An e-mail to the team when its run fails (scoring) or is rejected (a worker's
full check of a large file) (issue 44, item 5): every member with a verified
address, except who opted out on the notification e-mail page; once."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from evalhub.competitions import jobs
from evalhub.competitions.models import Submission
from evalhub.competitions.services.runs import scoring
from evalhub.notifications import jobs as notification_jobs

pytestmark = pytest.mark.django_db


@pytest.fixture
def mates(team, participant, outsider, other_team, client, django_user_model):  # noqa: ANN001, ANN201
    """alice (verified), bob (alice's team, verified, opted out on the page),
    mallory (another team, verified)."""
    bob = django_user_model.objects.create_user("bob")
    team.members.add(bob)
    for user in (participant, bob, outsider):
        EmailAddress.objects.create(
            user=user, email=f"{user.username}@example.org", verified=True, primary=True
        )
    client.force_login(bob)
    assert client.post(reverse("notifications:mail-settings"), {}).status_code == 302
    client.logout()
    return bob


def _mail_all(key_prefix: str) -> int:
    from evalhub.notifications.models import Notification

    keys = set(
        Notification.objects.filter(key__startswith=key_prefix).values_list(
            "key", flat=True
        )
    )
    assert len(keys) == 1
    key = keys.pop()
    sent = notification_jobs.mail_notifications.apply(args=[key]).get()
    assert notification_jobs.mail_notifications.apply(args=[key]).get() == 0
    return sent


def test_a_failed_run_is_mailed_to_its_team(
    submit_run, demo_run, mates, monkeypatch, django_capture_on_commit_callbacks
):
    run = submit_run(demo_run)

    def broken(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise RuntimeError("gold line: secret\tgeheim")

    monkeypatch.setattr(scoring, "_score_all", broken)
    with django_capture_on_commit_callbacks(execute=True):
        assert jobs.score_submission.apply(args=[run.pk]).get() == "failed"
    assert _mail_all(f"run:{run.pk}:failed") == 1
    assert [m.to for m in mail.outbox] == [["alice@example.org"]]
    message = mail.outbox[0]
    assert f"Run {run.pk} (m) on BUCC test task / Evaluation failed" in message.subject
    assert "secret" not in message.body and "geheim" not in message.body
    assert f"/runs/{run.pk}/" in message.body
    assert "member of the run's team" in message.body


def test_a_run_rejected_by_the_workers_check_is_mailed(
    client,
    participant,
    phase,
    task,
    test_set,
    mates,
    settings,
    django_capture_on_commit_callbacks,
):
    settings.INLINE_VALIDATION_BYTES = 1  # every run is checked by a worker
    client.force_login(participant)
    with django_capture_on_commit_callbacks(execute=False):
        client.post(
            reverse("competitions:run-submit", args=[task.slug, phase.slug]),
            {"method_name": "m", "run": SimpleUploadedFile("run.tsv", b"no tabs\n")},
        )
    run = Submission.objects.get()
    assert run.status == Submission.Status.VALIDATING
    with django_capture_on_commit_callbacks(execute=True):
        jobs.validate_submission.apply(args=[run.pk]).get()
    run.refresh_from_db()
    assert run.status == Submission.Status.REJECTED
    assert _mail_all(f"run:{run.pk}:rejected") == 1
    assert [m.to for m in mail.outbox] == [["alice@example.org"]]
    assert "was rejected" in mail.outbox[0].subject
