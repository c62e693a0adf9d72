"""The API-token page in a real browser (Debian's Chromium via Playwright) against the
live server: create a token, see it once, use it over HTTP, revoke it. Screenshots go
to $EVALHUB_SCREENSHOTS (when it is set)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from tests.browsers import screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _api_status(url: str, token: str) -> int:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            json.load(response)
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_create_see_once_use_and_revoke_a_token(
    live_server, participant, team, phase, test_set, tmp_path, screenshots, page
):
    page.goto(f"{live_server.url}/account/tokens/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("pw-alice-1")
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("heading", name="API tokens").wait_for()
    page.get_by_label("Name").fill("laptop")
    page.get_by_role("button", name="Create token").click()
    secret = page.locator("#new-token").inner_text()
    assert secret.startswith("evh_")
    screenshot(page, screenshots / "token_created.png", full_page=True)

    runs = f"{live_server.url}/api/tasks/bucc-test/phases/evaluation/runs"
    assert _api_status(runs, secret) == 200

    page.goto(f"{live_server.url}/account/tokens/")
    assert secret not in page.content()  # shown once
    page.get_by_role("button", name="Revoke").click()
    page.get_by_text("revoked").wait_for()
    screenshot(page, screenshots / "token_revoked.png", full_page=True)
    assert _api_status(runs, secret) == 401
