"""Teams, approvals and notifications in a real browser (Debian's Chromium driven by
Playwright) against the live server and a real Celery worker: alice creates a team,
invites bob and registers the team for a task that needs approval; the organiser
approves it from the dashboard; bob (on a phone-sized screen) finds the invitation
in his notifications, accepts, submits a run, and the bell tells him it was scored."""

from __future__ import annotations

import re

import pytest

from tests.browsers import log_in, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _log_in(browser, url: str, username: str, password: str, **context):  # noqa: ANN001, ANN003, ANN202
    page = browser.new_context(timezone_id="Europe/Paris", **context).new_page()
    page.set_default_timeout(30_000)
    log_in(page, url, username, password)
    return page


def test_team_invitation_approval_and_notifications(
    live_server,
    worker,
    task,
    phase,
    test_set,
    participant,
    organiser,
    django_user_model,
    demo_run,
    tmp_path,
    screenshots,
    browser,
):
    shots = screenshots
    task.requires_approval = True
    task.save()
    django_user_model.objects.create_user("bob", password="pw-bob-1")
    run_file = tmp_path / "dictionary.tsv"
    run_file.write_bytes(demo_run)
    url = live_server.url

    # alice: a new team, bob invited by username, the team registered.
    alice = _log_in(browser, url, "alice", "pw-alice-1")
    alice.get_by_role("link", name="My teams").click()
    alice.get_by_label("Team name").fill("Lexicographers")
    alice.get_by_role("button", name="Create team").click()
    alice.get_by_role("heading", name="Team Lexicographers").wait_for()
    alice.get_by_label("Username or email").fill("bob")
    alice.get_by_role("button", name="Invite", exact=True).click()
    alice.get_by_text("bob is invited to Lexicographers").wait_for()
    alice.goto(f"{url}/tasks/{task.slug}/")
    alice.get_by_role("link", name="Register a team").click()
    alice.get_by_label("One of your teams").select_option(label="Lexicographers")
    alice.get_by_role("button", name="Register").click()
    alice.get_by_text("Lexicographers awaits the organisers' approval").wait_for()

    # The organiser approves it from the dashboard, with one click.
    org = _log_in(browser, url, "org", "pw-organiser-1")
    org.goto(f"{url}/tasks/{task.slug}/dashboard/")
    org.get_by_role("button", name="Approve Lexicographers").click()
    org.get_by_text("The registration of team Lexicographers is approved.").wait_for()
    org.get_by_text("No registration is waiting.").wait_for()
    screenshot(org, shots / "dashboard_approved.png", full_page=True)

    # alice is told on the site.
    alice.reload()
    assert alice.locator("#bell [data-unread]").inner_text().startswith("1")

    # bob, on a phone: the bell shows the invitation; he accepts from it.
    bob = _log_in(
        browser, url, "bob", "pw-bob-1", viewport={"width": 390, "height": 844}
    )
    bell = bob.locator("#bell")
    assert bell.locator("[data-unread]").inner_text().startswith("1")
    bell.click()
    bob.get_by_role(
        "button", name=re.compile("alice invited you to join team Lexicographers")
    ).click()
    screenshot(bob, shots / "invitation_phone.png", full_page=True)
    bob.get_by_role("button", name="Accept and join Lexicographers").click()
    bob.get_by_text("You joined Lexicographers.").wait_for()
    members = bob.locator("ul.members")
    assert "alice" in members.inner_text() and "bob" in members.inner_text()
    assert bob.locator("#bell [data-unread]").count() == 0  # opened = read

    # bob submits for the team; the bell tells him when the run is scored.
    bob.goto(f"{url}/tasks/{task.slug}/{phase.slug}/submit/")
    bob.get_by_text("Team Lexicographers").wait_for()
    bob.get_by_label("Method name").fill("dictionary lookup")
    bob.get_by_label("Run file").set_input_files(str(run_file))
    bob.get_by_role("button", name="Submit").click()
    bob.wait_for_url("**/runs/*/")
    run_id = re.search(r"/runs/(\d+)/", bob.url).group(1)
    bob.get_by_text("Status: Scored").wait_for(timeout=180_000)
    # The receiver runs in the worker right after the commit: the bell (htmx, every
    # 30 s, or the page's reload when the run became final) catches up.
    bob.locator("#bell [data-unread]").wait_for(timeout=60_000)
    bob.locator("#bell").click()
    bob.get_by_role(
        "button", name=re.compile(f"Run {run_id} \\(dictionary lookup\\) .* was scored")
    ).wait_for()
    screenshot(bob, shots / "notifications_phone.png", full_page=True)
