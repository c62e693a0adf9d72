"""Organiser approvals and baseline runs from the task dashboard."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from evalhub.competitions import jobs
from evalhub.competitions.models import Registration, Submission, Team
from evalhub.competitions.services import teams as registrations
from evalhub.competitions.services.runs import submit
from evalhub.notifications.models import Notification

pytestmark = pytest.mark.django_db


@pytest.fixture
def pending(task, participant):  # noqa: ANN001, ANN201
    task.requires_approval = True
    task.save()
    return registrations.register(task=task, user=participant, new_team_name="Alpha")


def test_dashboard_lists_pending_registrations_with_one_click_decisions(
    client, task, pending, organiser
):
    client.force_login(organiser)
    page = client.get(reverse("competitions:task-dashboard", args=[task.slug]))
    html = page.content.decode()
    assert "Registrations awaiting approval (1)" in html
    action = reverse("competitions:registration-decide", args=[task.slug, pending.pk])
    assert f'action="{action}"' in html
    assert 'name="decision" value="approve" aria-label="Approve Alpha"' in html
    assert "csrfmiddlewaretoken" in html


def test_approve_from_the_dashboard_tells_the_team(
    client, task, pending, organiser, participant, django_capture_on_commit_callbacks
):
    client.force_login(organiser)
    url = reverse("competitions:registration-decide", args=[task.slug, pending.pk])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"decision": "approve"}, follow=True)
    assert response.redirect_chain[-1][0] == f"/tasks/{task.slug}/dashboard/"
    assert b"The registration of team Alpha is approved." in response.content
    assert b"No registration is waiting." in response.content
    pending.refresh_from_db()
    assert pending.status == Registration.Status.APPROVED
    texts = list(
        Notification.objects.filter(recipient=participant).values_list(
            "text", flat=True
        )
    )
    assert texts == [
        "The organisers approved the registration of team Alpha for BUCC test task."
    ]


def test_reject_from_the_dashboard(client, task, pending, organiser):
    client.force_login(organiser)
    url = reverse("competitions:registration-decide", args=[task.slug, pending.pk])
    client.post(url, {"decision": "reject"})
    pending.refresh_from_db()
    assert pending.status == Registration.Status.REJECTED


def test_only_organisers_decide_and_only_by_post(
    client, task, pending, participant, outsider, organiser
):
    url = reverse("competitions:registration-decide", args=[task.slug, pending.pk])
    assert client.post(url, {"decision": "approve"}).status_code == 302  # log in
    for user in (participant, outsider):
        client.force_login(user)
        assert client.post(url, {"decision": "approve"}).status_code == 404
    client.force_login(organiser)
    assert client.get(url).status_code == 405
    pending.refresh_from_db()
    assert pending.status == Registration.Status.PENDING


def test_csrf_is_required(task, pending, organiser):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(organiser)
    url = reverse("competitions:registration-decide", args=[task.slug, pending.pk])
    assert client.post(url, {"decision": "approve"}).status_code == 403


def test_admin_approve_action_also_tells_the_team(
    client, task, pending, organiser, participant, django_capture_on_commit_callbacks
):
    client.force_login(organiser)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("admin:competitions_registration_changelist"),
            {"action": "approve", "_selected_action": [pending.pk]},
        )
    pending.refresh_from_db()
    assert pending.status == Registration.Status.APPROVED
    assert Notification.objects.filter(recipient=participant).count() == 1


def _upload(data: bytes, name: str = "baseline.tsv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data)


def test_organiser_uploads_a_baseline_that_is_scored_and_marked(
    client, task, phase, test_set, organiser, team, submit_run, demo_run, monkeypatch
):
    monkeypatch.setattr(jobs.refresh_analyses, "delay", lambda *args: None)
    client.force_login(organiser)
    dash = client.get(reverse("competitions:task-dashboard", args=[task.slug]))
    url = reverse("competitions:baseline-create", args=[task.slug, phase.slug])
    assert f'href="{url}"'.encode() in dash.content
    form = client.get(url)
    assert b'<label for="id_method_name">Method name' in form.content
    # More baselines than the team limits allow (daily 3, total 5), phase closed.
    phase.closes_at = phase.opens_at
    phase.save()
    for i in range(phase.daily_limit + 1):
        response = client.post(
            url, {"method_name": f"lookup {i}", "run": _upload(demo_run)}
        )
        assert response.status_code == 302, response.content[:500]
    baselines = Submission.objects.filter(is_baseline=True)
    assert baselines.count() == phase.daily_limit + 1
    assert {b.team.name for b in baselines} == {"Baselines (bucc-test)"}
    assert not Team.objects.get(name="Baselines (bucc-test)").members.exists()
    assert (
        submit.allowance(phase=phase, team=baselines[0].team).left == phase.daily_limit
    )

    for b in baselines:
        assert jobs.score_submission(b.pk) == "scored"
    board = client.get(
        reverse("competitions:leaderboard-detail", args=[task.slug, phase.slug])
    )
    html = board.content.decode()
    assert 'class="baseline"' in html
    assert 'Baselines (bucc-test) <span class="badge">baseline</span>' in html


def test_a_bad_baseline_file_is_shown_with_its_line(
    client, task, phase, test_set, organiser
):
    client.force_login(organiser)
    url = reverse("competitions:baseline-create", args=[task.slug, phase.slug])
    response = client.post(
        url,
        {"method_name": "broken", "run": _upload(b"source\ttarget\nno tab\n", "b.tsv")},
    )
    assert response.status_code == 422
    assert b"b.tsv, line 2" in response.content
    assert not Submission.objects.filter(is_baseline=True, status="queued").exists()


def test_only_organisers_add_baselines(
    client, task, phase, test_set, participant, team, demo_run
):
    url = reverse("competitions:baseline-create", args=[task.slug, phase.slug])
    assert client.get(url).status_code == 302
    client.force_login(participant)
    assert client.get(url).status_code == 404
    assert (
        client.post(url, {"method_name": "x", "run": _upload(demo_run)}).status_code
        == 404
    )
    with pytest.raises(submit.SubmissionRefused, match="Only organisers"):
        submit.submit_baseline(
            phase=phase,
            user=participant,
            filename="r.tsv",
            data=demo_run,
            method_name="x",
        )
    assert not Submission.objects.exists()


def test_a_participant_team_with_the_baseline_name_is_never_used(
    task, phase, test_set, organiser, participant, demo_run
):
    registrations.create_team(name="Baselines (bucc-test)", user=participant)
    with pytest.raises(submit.SubmissionRefused, match="participant team is called"):
        submit.submit_baseline(
            phase=phase,
            user=organiser,
            filename="r.tsv",
            data=demo_run,
            method_name="x",
        )
