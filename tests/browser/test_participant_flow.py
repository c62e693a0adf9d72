"""A new participant in a real browser (Debian's Chromium driven by Playwright) against
the live server and a real Celery worker: sign up, register a team, upload a run (the
progress bar), watch the status change without reloading, find the run on the
leaderboard. Screenshots go to $EVALHUB_SCREENSHOTS (default: the test's tmp folder)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.e2e.test_pipeline import worker  # noqa: F401  (fixture: a real Celery worker)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
def page(tmp_path, monkeypatch):  # noqa: ANN001, ANN201
    """Request it last: Playwright's sync API runs an event loop in this thread, and
    the database fixtures must be set up before it starts."""
    # Teardown of the transactional test database runs while the loop object exists.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian's chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(
            timezone_id="Europe/Paris", viewport={"width": 1200, "height": 900}
        )
        page = context.new_page()
        page.set_default_timeout(30_000)
        yield page
        browser.close()


def test_sign_up_register_submit_watch_and_rank(
    live_server, worker, task, phase, test_set, demo_run, tmp_path, page
):  # noqa: ANN001, F811
    shots = Path(os.environ.get("EVALHUB_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    run_file = tmp_path / "dictionary.tsv"
    run_file.write_bytes(demo_run)

    page.goto(f"{live_server.url}/accounts/signup/")
    page.get_by_label("Username").fill("newcomer")
    page.get_by_label("Password:", exact=True).fill("a-long-passphrase-42")
    page.get_by_label("Password confirmation").fill("a-long-passphrase-42")
    page.get_by_role("button", name="Create account").click()
    page.get_by_text("Signed in as").wait_for()

    page.goto(f"{live_server.url}/tasks/{task.slug}/")
    page.get_by_role("link", name="Register a team").click()
    page.get_by_label("…or a new team name").fill("Newcomers")
    page.get_by_role("button", name="Register").click()
    page.get_by_text("is registered").wait_for()
    # Times are shown in the browser's time zone (Europe/Paris).
    assert "CET" in page.content() or "CEST" in page.content()
    page.screenshot(path=str(shots / "task_page.png"), full_page=True)

    page.get_by_role("link", name="Submit a run").click()
    page.get_by_label("Method name").fill("dictionary lookup")
    page.get_by_label("Run file").set_input_files(str(run_file))
    page.get_by_role("button", name="Submit").click()
    page.wait_for_url("**/runs/*/")
    status = page.locator("#run-status")
    assert status.inner_text().startswith("Status:")
    # htmx polls the status; the page reloads itself once the run is final.
    page.get_by_text("Status: Scored").wait_for(timeout=180_000)
    page.get_by_role("rowheader", name="AP", exact=True).wait_for()
    page.screenshot(path=str(shots / "run_page.png"), full_page=True)

    page.goto(f"{live_server.url}/tasks/{task.slug}/{phase.slug}/leaderboard/")
    row = page.get_by_role("row").filter(has_text="Newcomers")
    assert row.get_by_role("cell").first.inner_text() == "1"
    page.screenshot(path=str(shots / "leaderboard.png"), full_page=True)


def test_a_bad_file_shows_line_numbered_errors_in_the_browser(
    live_server, participant, task, phase, team, test_set, tmp_path, page
):  # noqa: ANN001
    bad = tmp_path / "broken.tsv"
    bad.write_bytes(b"source\ttarget\nno tab on this line\n")
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("pw-alice-1")
    page.get_by_role("button", name="Log in").click()
    page.goto(f"{live_server.url}/tasks/{task.slug}/{phase.slug}/submit/")
    page.get_by_label("Method name").fill("broken")
    page.get_by_label("Run file").set_input_files(str(bad))
    page.get_by_role("button", name="Submit").click()
    alert = page.get_by_role("alert")
    alert.wait_for()
    assert "broken.tsv, line 2" in alert.inner_text()
