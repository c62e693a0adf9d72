"""Issue 43.6: every error a browser can meet (400, 403, 404, 413, 429 with its
Retry-After, 500, a failed CSRF check) is the site's page, with its header and a way
on, never Django's bare text; the REST API's clients still read plain text."""

from __future__ import annotations

from unittest import mock

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db

#: What every one of the site's error pages shows: its header and a way on.
HEADER = '<a class="brand" href="/">evalhub</a>'
WAY_ON = '<a href="/">The list of tasks</a>'


def _site_page(response, status: int, *words: str) -> str:  # noqa: ANN001
    page = response.content.decode()
    assert response.status_code == status, page[:500]
    assert response["Content-Type"].startswith("text/html")
    assert HEADER in page and WAY_ON in page, page[:2000]
    assert f"Error {status}" in page
    for word in words:
        assert word in page, page[:3000]
    return page


def test_404_is_the_sites_page_with_a_way_on(client):
    page = _site_page(client.get("/no/such/page/"), 404, "Page not found")
    assert '<a href="/accounts/login/?next=/no/such/page/">Log in</a>' in page


def test_a_bad_form_is_a_400_page(client, organiser):
    client.force_login(organiser)
    response = client.post("/staff/creators/", {"action": "grant"})
    _site_page(response, 400, "Bad request")


def test_a_failed_csrf_check_says_what_to_do(participant):
    client = Client(enforce_csrf_checks=True)
    client.force_login(participant)
    response = client.post(
        reverse("teams:team-create"), {"name": "x"}, HTTP_REFERER="http://testserver/"
    )
    _site_page(response, 403, "reload the page", "Back to the page you came from")


def test_an_upload_over_the_limit_is_the_sites_413_page_with_a_way_back(
    client, settings, task, phase, test_set, team, participant
):
    settings.MAX_UPLOAD_BYTES = 64 * 1024
    client.force_login(participant)
    form = reverse("competitions:run-submit", args=[task.slug, phase.slug])
    response = client.post(
        form,
        {"run": SimpleUploadedFile("run.tsv", b"x" * 100_000), "method_name": "m"},
        HTTP_REFERER=f"http://testserver{form}",
    )
    page = _site_page(response, 413, "File too large", "limit of 65,536 bytes")
    assert f'<a href="http://testserver{form}">Back to the page you came from' in page
    assert ".zip archive" in page


def test_429_is_the_sites_page_with_retry_after(client, settings, outsider):
    settings.LOGIN_RATE = "1/600"
    url = reverse("account_login")
    client.post(url, {"login": "mallory", "password": "wrong"})
    response = client.post(url, {"login": "mallory", "password": "wrong"})
    _site_page(response, 429, "Too many login attempts", "try again in")
    assert int(response["Retry-After"]) > 0


def test_500_is_the_sites_page(participant):
    client = Client(raise_request_exception=False)
    with mock.patch(
        "evalhub.competitions.views.tasks.render", side_effect=RuntimeError("boom")
    ):
        response = client.get("/")
    page = _site_page(response, 500, "Something went wrong")
    assert "boom" not in page


def test_the_api_still_answers_plain_text(client):
    response = client.get("/api/v1/no-such-thing")
    assert response.status_code == 404
    assert HEADER not in response.content.decode()


def test_the_upload_form_states_the_limit_and_the_compressed_forms(
    client, settings, task, phase, test_set, team, participant
):
    """Issue 43.3: the browser checks the size (the field carries the limit) and the
    format help says which compressed forms the task accepts."""
    settings.MAX_UPLOAD_BYTES = 50 * 1024 * 1024
    client.force_login(participant)
    page = client.get(
        reverse("competitions:run-submit", args=[task.slug, phase.slug])
    ).content.decode()
    assert f'data-max-bytes="{50 * 1024 * 1024}"' in page
    assert "At most 50 MiB." in page
    assert "compressed files (.zip, .gz, .bz2, .xz, .7z) are not accepted" in page
