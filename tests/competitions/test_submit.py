from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from evalhub.competitions.models import Registration, Submission
from evalhub.competitions.services.runs import submit

pytestmark = pytest.mark.django_db


def test_valid_run_is_queued_with_its_hash(
    submit_run, demo_run, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as callbacks:
        sub = submit_run(demo_run, method="dictionary")
    assert sub.status == Submission.Status.QUEUED
    assert len(sub.sha256) == 64 and sub.size == len(demo_run)
    assert len(callbacks) == 1  # enqueued after commit, not before


def test_bad_file_is_rejected_with_line_numbers_and_not_counted(
    submit_run, phase, team
):
    bad = b"only-one-column\nsource\ttarget\tthird\n"
    with pytest.raises(submit.SubmissionInvalid) as info:
        submit_run(bad)
    messages = [str(p) for p in info.value.problems]
    assert any("line 1" in m for m in messages) and any("line 2" in m for m in messages)
    assert all("run.tsv" in m for m in messages)
    row = Submission.objects.get()
    assert row.status == Submission.Status.REJECTED
    assert submit.allowance(phase=phase, team=team).total_left == phase.total_limit


def test_not_utf8_names_the_line(submit_run):
    with pytest.raises(submit.SubmissionInvalid) as info:
        submit_run(b"a\tb\n\xff\xfe\tc\n")
    assert "line 2" in str(info.value.problems[0])


def test_empty_file_is_refused(submit_run):
    with pytest.raises(submit.SubmissionInvalid):
        submit_run(b"")


def test_daily_limit_then_total_limit(submit_run, demo_run, phase, team):
    now = timezone.now().replace(hour=12)
    for _ in range(phase.daily_limit):
        submit_run(demo_run, now=now)
    with pytest.raises(submit.SubmissionRefused, match="for today"):
        submit_run(demo_run, now=now)
    left = submit.allowance(phase=phase, team=team, now=now)
    assert left.daily_left == 0 and left.resets_at > now
    tomorrow = now + timedelta(days=1)
    submit_run(demo_run, now=tomorrow)
    submit_run(demo_run, now=tomorrow)
    with pytest.raises(submit.SubmissionRefused, match="all 5 runs"):
        submit_run(demo_run, now=tomorrow)


def test_failed_runs_count_only_when_the_phase_says_so(
    submit_run, demo_run, phase, team
):
    sub = submit_run(demo_run)
    Submission.objects.filter(pk=sub.pk).update(status=Submission.Status.FAILED)
    assert submit.allowance(phase=phase, team=team).total_left == phase.total_limit
    phase.failed_runs_count = True
    phase.save()
    assert submit.allowance(phase=phase, team=team).total_left == phase.total_limit - 1


def test_closed_phase_refuses(submit_run, demo_run, phase):
    phase.closes_at = timezone.now() - timedelta(minutes=1)
    phase.save()
    with pytest.raises(submit.SubmissionRefused, match="closed"):
        submit_run(demo_run)


def test_unregistered_or_unapproved_user_is_refused(
    submit_run, demo_run, outsider, team
):
    with pytest.raises(submit.SubmissionRefused, match="not registered"):
        submit_run(demo_run, user=outsider)
    Registration.objects.filter(team=team).update(status=Registration.Status.PENDING)
    with pytest.raises(submit.SubmissionRefused, match="not registered"):
        submit_run(demo_run)


def test_oversize_upload_is_refused_before_parsing(submit_run, settings):
    settings.MAX_UPLOAD_BYTES = 1024
    with pytest.raises(submit.SubmissionRefused, match="limit"):
        submit_run(b"a\tb\n" * 1000)


def test_browser_form_shows_line_numbered_errors(
    client, participant, task, phase, team, test_set
):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(participant)
    url = f"/tasks/{task.slug}/{phase.slug}/submit/"
    response = client.post(
        url,
        {"method_name": "x", "run": SimpleUploadedFile("mine.tsv", b"no tab here\n")},
    )
    assert response.status_code == 422
    assert b"mine.tsv, line 1" in response.content


def test_browser_form_redirects_to_the_run_page(
    client, participant, task, phase, team, test_set, demo_run
):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(participant)
    url = f"/tasks/{task.slug}/{phase.slug}/submit/"
    response = client.post(
        url, {"method_name": "dict", "run": SimpleUploadedFile("mine.tsv", demo_run)}
    )
    sub = Submission.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/runs/{sub.pk}/"


def test_task_page_lists_the_team_runs_to_its_members_only(
    client, participant, outsider, task, submit_run, demo_run
):
    sub = submit_run(demo_run, method="my-dictionary")
    client.force_login(participant)
    assert b"my-dictionary" in client.get(f"/tasks/{task.slug}/").content
    client.force_login(outsider)
    assert b"my-dictionary" not in client.get(f"/tasks/{task.slug}/").content
    assert sub.pk
