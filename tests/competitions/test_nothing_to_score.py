"""Issue 43.4: a run with nothing left to score (here one long line, a pair outside
the term lists, removed) is rejected with the reason and not counted, whether the
request parses it or a worker's validation job does; a file identical to one of the
team's earlier runs is named on upload. Every step through the upload form."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from evalhub.competitions import jobs
from evalhub.competitions.models import Submission
from evalhub.competitions.services.runs import submit

pytestmark = pytest.mark.django_db

#: One line, one pair, neither term in the task's term lists.
NOTHING_LEFT = b"x" * 200_000 + b"\t" + b"y" * 200_000 + b"\n"


def _upload(client, task, phase, data: bytes, name: str = "run.tsv"):  # noqa: ANN001, ANN202
    return client.post(
        reverse("competitions:run-submit", args=[task.slug, phase.slug]),
        {"run": SimpleUploadedFile(name, data), "method_name": "m"},
    )


def test_a_run_with_nothing_left_is_rejected_with_the_reason_uncounted(
    client, task, phase, test_set, private_test_set, team, participant
):
    client.force_login(participant)
    before = submit.allowance(phase=phase, team=team)
    response = _upload(client, task, phase, NOTHING_LEFT)
    assert response.status_code == 422
    page = response.content.decode()
    assert "nothing in this run can be scored" in page
    assert "outside the source x target term lists removed (line(s) 1)" in page
    (row,) = Submission.objects.all()
    assert row.status == Submission.Status.REJECTED
    assert submit.allowance(phase=phase, team=team) == before


def test_a_large_run_with_nothing_left_is_rejected_by_the_worker(
    client, settings, task, phase, test_set, team, participant
):
    settings.INLINE_VALIDATION_BYTES = 0  # every file goes to the validation job
    client.force_login(participant)
    before = submit.allowance(phase=phase, team=team)
    assert _upload(client, task, phase, NOTHING_LEFT).status_code == 302
    (row,) = Submission.objects.all()
    assert row.status == Submission.Status.VALIDATING
    assert jobs.validate_submission(row.pk) == "rejected"
    row.refresh_from_db()
    assert row.status == Submission.Status.REJECTED
    assert "nothing in this run can be scored" in row.failure_message
    assert submit.allowance(phase=phase, team=team) == before


def test_a_repeat_of_an_earlier_run_is_named_on_upload(
    client, task, phase, test_set, team, participant, demo_run
):
    client.force_login(participant)
    assert _upload(client, task, phase, demo_run).status_code == 302
    first = Submission.objects.get()
    page = client.get(first.get_absolute_url()).content.decode()
    assert "identical to your run" not in page
    response = _upload(client, task, phase, demo_run, name="again.tsv")
    assert response.status_code == 302
    page = client.get(response["Location"]).content.decode()
    assert f"This file is identical to your run #{first.pk} (m)" in page
    # Another file is not a repeat.
    response = _upload(client, task, phase, demo_run + b"\n", name="other.tsv")
    page = client.get(response["Location"]).content.decode()
    assert "identical to your run" not in page
