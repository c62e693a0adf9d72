"""Data terms before data (issue 44, item 1), through web requests and the REST API:
the organiser writes versioned terms and a licence in the console; a participant
gets no file and submits no run before accepting the version in force (browser:
sent to the terms page and back; API: 403 naming the page); each acceptance records
account, team, version and time; a new version asks again; a task without terms
keeps its files open, the licence shown. The CLI: tests/participation/test_cli.py."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from evalhub.participation.models import Acceptance, TermsVersion
from tests.participation.helpers import accept, client_of, set_terms

pytestmark = pytest.mark.django_db

TERMS = "You use the **BUCC** data for research only.\n\n<script>alert(1)</script>"


def _file_url(test_set) -> str:  # noqa: ANN001
    return reverse("competitions:testset-file", args=[test_set.pk, "source_terms"])


def _api_file(test_set) -> str:  # noqa: ANN001
    return reverse(
        "api:api-v1:testset-file-download",
        args=["bucc-test", "evaluation", test_set.slug, "source_terms"],
    )


def test_without_terms_the_files_stay_open_and_the_licence_is_shown(
    organiser, task, test_set
):
    set_terms(organiser, task, "", licence="CC-BY-4.0")
    assert not TermsVersion.objects.exists()
    anonymous = Client()
    assert anonymous.get(_file_url(test_set)).status_code == 200
    assert anonymous.get(_api_file(test_set)).status_code == 200
    page = anonymous.get(task.get_absolute_url()).content.decode()
    assert "https://spdx.org/licenses/CC-BY-4.0.html" in page
    assert "No terms to accept" in page


def test_terms_are_accepted_before_any_download_and_again_when_they_change(
    organiser, participant, team, task, test_set, tokens
):
    set_terms(organiser, task, TERMS)
    version = TermsVersion.objects.get(task=task)
    assert version.number == 1
    # Anonymous and the participant: sent to the terms page, nothing served.
    for c in (Client(), client_of(participant)):
        response = c.get(_file_url(test_set))
        assert response.status_code == 302
        assert response["Location"].startswith(
            reverse("participation:terms", args=[task.slug])
        )
    page = client_of(participant).get(reverse("participation:terms", args=[task.slug]))
    html = page.content.decode()
    assert "<strong>BUCC</strong>" in html and "<script>alert" not in html
    # The API: 403 with the page's link, for the participant's token.
    headers = {"HTTP_AUTHORIZATION": f"Bearer {tokens['participant']}"}
    refused = Client().get(_api_file(test_set), **headers)
    assert refused.status_code == 403
    assert f"/tasks/{task.slug}/terms/" in refused.json()["detail"]
    # Accepting: recorded with account, team, version, time; then back to the file.
    back = accept(participant, task, 1, next_url=_file_url(test_set))
    assert back["Location"] == _file_url(test_set)
    record = Acceptance.objects.get()
    assert (record.user, record.team, record.version) == (participant, team, version)
    assert record.accepted_at is not None
    assert client_of(participant).get(_file_url(test_set)).status_code == 200
    assert Client().get(_api_file(test_set), **headers).status_code == 200
    # The organiser never needs to accept.
    assert client_of(organiser).get(_file_url(test_set)).status_code == 200
    # New terms: a new version, asked for again.
    set_terms(organiser, task, TERMS + "\n\nAlso cite the overview paper.")
    assert TermsVersion.objects.filter(task=task).count() == 2
    assert client_of(participant).get(_file_url(test_set)).status_code == 302
    assert Client().get(_api_file(test_set), **headers).status_code == 403
    # Accepting the old version once the new one is in force is refused.
    stale = accept(participant, task, 1)
    assert stale.status_code == 422
    accept(participant, task, 2)
    assert client_of(participant).get(_file_url(test_set)).status_code == 200


def test_no_run_before_the_terms_are_accepted(
    organiser, participant, team, task, phase, test_set, demo_run, tokens
):
    set_terms(organiser, task, TERMS)
    submit_page = reverse("competitions:run-submit", args=[task.slug, phase.slug])
    c = client_of(participant)
    shown = c.get(submit_page).content.decode()
    assert "Accept the current data terms" in shown
    response = c.post(
        submit_page,
        {"method_name": "m", "run": _upload(demo_run)},
    )
    assert response.status_code == 422
    assert f"/tasks/{task.slug}/terms/" in response.content.decode()
    api = Client().post(
        reverse("api:api-v1:run-create", args=[task.slug, phase.slug]),
        {"method_name": "m", "file": _upload(demo_run)},
        HTTP_AUTHORIZATION=f"Bearer {tokens['participant']}",
    )
    assert api.status_code == 403
    assert f"/tasks/{task.slug}/terms/" in api.json()["detail"]
    assert not phase.submissions.exists()
    accept(participant, task, 1)
    api = Client().post(
        reverse("api:api-v1:run-create", args=[task.slug, phase.slug]),
        {"method_name": "m", "file": _upload(demo_run)},
        HTTP_AUTHORIZATION=f"Bearer {tokens['participant']}",
    )
    assert api.status_code == 201, api.content


def test_a_licence_is_an_spdx_id_or_custom(organiser, task):
    response = client_of(organiser).post(
        reverse("console:data-terms", args=[task.slug]),
        {"text": "", "licence": "CC BY <b>"},
    )
    assert response.status_code == 422
    assert "SPDX" in response.content.decode()
    response = client_of(organiser).post(
        reverse("console:data-terms", args=[task.slug]),
        {"text": "", "licence": "custom"},
    )
    assert response.status_code == 422  # a custom licence needs terms


def test_a_task_may_require_affiliation_and_country_before_registering(
    organiser, participant, task
):
    set_terms(organiser, task, "", require_profile="on")
    c = client_of(participant)
    register = reverse("competitions:task-register", args=[task.slug])
    response = c.post(register, {"new_team": "Alpha"})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("participation:profile"))
    assert not task.registrations.exists()
    c.post(
        reverse("participation:profile"),
        {"affiliation": "University of Zurich", "country": "Switzerland"},
    )
    assert c.post(register, {"new_team": "Alpha"}).status_code == 302
    assert task.registrations.get().team.name == "Alpha"


def _upload(data: bytes):  # noqa: ANN202
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile("run.tsv", data)
