"""The console's archive button: the task's organisers download its archive from
the settings page; nobody else learns the address exists."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.urls import reverse

from tests.rankings.helpers import scored

pytestmark = pytest.mark.django_db


def test_organisers_download_the_archive_from_the_settings_page(
    client,
    organiser,
    task,
    phase,
    test_set,
    participant,
    team,
    bucc_demo,  # noqa: ANN001
):
    scored(phase, participant, bucc_demo.runs[0][2]["test"], "dictionary")
    client.force_login(organiser)
    url = reverse("console:task-archive", args=[task.slug])
    settings_page = client.get(reverse("console:task-settings", args=[task.slug]))
    assert url in settings_page.content.decode()
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment")
    body = b"".join(response.streaming_content)
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        manifest = json.loads(archive.read("manifest.json"))
        rows = [json.loads(line) for line in archive.read("rows.jsonl").splitlines()]
    assert manifest["task"] == task.slug and manifest["version"] == 1
    assert {"competitions.submission", "competitions.score"} <= {
        r["model"] for r in rows
    }


@pytest.mark.parametrize("who", ["participant", "outsider"])
def test_nobody_else_gets_it(client, task, team, who, request):  # noqa: ANN001
    client.force_login(request.getfixturevalue(who))
    response = client.get(reverse("console:task-archive", args=[task.slug]))
    assert response.status_code == 404


def test_anonymous_visitors_are_sent_to_sign_in(client, task):  # noqa: ANN001
    response = client.get(reverse("console:task-archive", args=[task.slug]))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
