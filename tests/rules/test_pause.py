"""Submissions paused by the organisers (issue 44, item 5): the console's switch,
then the browser, the API and the CLI all refuse a run with the organisers'
message; nothing is stored; unpausing opens the doors again."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from evalhub.competitions.models import SharedTask, Submission
from tests.paths import REPO_ROOT

WHY = "The gold is being corrected <until Friday>"


def _pause(client, organiser, task, *, paused: bool = True) -> None:  # noqa: ANN001
    client.force_login(organiser)
    url = reverse("console:task-settings", args=[task.slug])
    data = settings_form_data(client, url)
    data.update(submissions_paused="on" if paused else "", pause_message=WHY)
    response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:3000]
    client.logout()
    task.refresh_from_db()
    assert task.submissions_paused is paused


def settings_form_data(client, url: str) -> dict[str, object]:  # noqa: ANN001
    """What the task's settings page posts back unchanged."""
    initial = client.get(url).context["form"].initial
    data = {}
    for name, value in initial.items():
        if value is None or value is False:
            continue
        data[name] = "on" if value is True else value
    return data


def _browser_submit(client, participant, task, phase, demo_run):  # noqa: ANN001, ANN202
    client.force_login(participant)
    return client.post(
        reverse("competitions:run-submit", args=[task.slug, phase.slug]),
        {"method_name": "m", "run": SimpleUploadedFile("run.tsv", demo_run)},
    )


def _api_submit(client, token, task, phase, demo_run):  # noqa: ANN001, ANN202
    return client.post(
        f"/api/tasks/{task.slug}/phases/{phase.slug}/runs",
        {"method_name": "m", "file": SimpleUploadedFile("run.tsv", demo_run)},
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )


@pytest.mark.django_db
def test_browser_and_api_refuse_with_the_message(
    client, organiser, participant, task, phase, team, test_set, tokens, demo_run
):
    _pause(client, organiser, task)
    page = _browser_submit(client, participant, task, phase, demo_run)
    assert page.status_code == 422
    text = page.content.decode()
    assert "The organisers paused submissions to this task" in text
    assert "The gold is being corrected &lt;until Friday&gt;" in text  # plain text
    # The submit page says so before any upload too.
    form = client.get(reverse("competitions:run-submit", args=[task.slug, phase.slug]))
    assert 'id="submissions-paused"' in form.content.decode()
    api = _api_submit(client, tokens["participant"], task, phase, demo_run)
    assert api.status_code == 403
    assert (
        api.json()["detail"] == f"The organisers paused submissions to this task: {WHY}"
    )
    assert not Submission.objects.exists()

    _pause(client, organiser, task, paused=False)
    api = _api_submit(client, tokens["participant"], task, phase, demo_run)
    assert api.status_code == 201, api.content
    page = client.get(reverse("competitions:run-submit", args=[task.slug, phase.slug]))
    assert 'id="submissions-paused"' not in page.content.decode()


@pytest.mark.django_db(transaction=True)
def test_the_cli_refuses_with_the_message(
    live_server, tokens, team, phase, test_set, demo_run, tmp_path
):
    SharedTask.objects.filter(pk=phase.task_id).update(
        submissions_paused=True, pause_message=WHY
    )
    run_file = tmp_path / "run.tsv"
    run_file.write_bytes(demo_run)
    env = {k: v for k, v in os.environ.items() if k != "EVALHUB_TOKEN"}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalhub.cli",
            "submit",
            "--url",
            live_server.url,
            "--task",
            "bucc-test",
            "--phase",
            "evaluation",
            "--method",
            "m",
            str(run_file),
            "--token",
            tokens["participant"],
        ],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 3, result.stderr
    assert f"The organisers paused submissions to this task: {WHY}" in result.stderr
    assert not Submission.objects.exists()
