"""A new participant in a real browser (Debian's Chromium driven by Playwright) against
the live server and a real Celery worker: sign up, register a team, upload a run (the
progress bar), watch the status change without reloading, find the run on the
leaderboard. Screenshots go to $EVALHUB_SCREENSHOTS (when it is set)."""

from __future__ import annotations

import pytest

from tests.browsers import screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_sign_up_register_submit_watch_and_rank(
    live_server, worker, task, phase, test_set, demo_run, tmp_path, screenshots, page
):  # noqa: ANN001, F811
    run_file = tmp_path / "dictionary.tsv"
    run_file.write_bytes(demo_run)

    page.goto(f"{live_server.url}/accounts/signup/")
    page.get_by_label("Username").fill("newcomer")
    page.get_by_label("Email").fill("newcomer@example.org")
    page.get_by_label("Password:", exact=True).fill("a-long-passphrase-42")
    page.get_by_label("Password (again)").fill("a-long-passphrase-42")
    page.get_by_role("button", name="Create account").click()
    page.get_by_text("Signed in as").wait_for()

    page.goto(f"{live_server.url}/tasks/{task.slug}/")
    page.get_by_role("link", name="Register a team").click()
    page.get_by_label("…or a new team name").fill("Newcomers")
    page.get_by_role("button", name="Register").click()
    page.get_by_text("is registered").wait_for()
    # Times are shown in the browser's time zone (Europe/Paris).
    assert "CET" in page.content() or "CEST" in page.content()
    screenshot(page, screenshots / "task_page.png", full_page=True)

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
    screenshot(page, screenshots / "run_page.png", full_page=True)

    page.goto(f"{live_server.url}/tasks/{task.slug}/{phase.slug}/leaderboard/")
    row = page.get_by_role("row").filter(has_text="Newcomers")
    assert row.get_by_role("cell").first.inner_text() == "1"
    screenshot(page, screenshots / "leaderboard.png", full_page=True)


def test_a_bad_file_shows_line_numbered_errors_in_the_browser(
    live_server, participant, task, phase, team, test_set, tmp_path, screenshots, page
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


def test_a_run_file_dropped_on_the_form_is_submitted(
    live_server, participant, task, phase, team, test_set, demo_run, screenshots, page
):  # noqa: ANN001
    from evalhub.competitions.models import Submission

    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("pw-alice-1")
    page.get_by_role("button", name="Log in").click()
    page.goto(f"{live_server.url}/tasks/{task.slug}/{phase.slug}/submit/")
    page.get_by_label("Method name").fill("dropped")
    # What the browser does when a file is dragged from the desktop onto the field.
    page.locator(".dropzone").evaluate(
        """(zone, text) => {
            const data = new DataTransfer();
            data.items.add(new File([text], "dropped.tsv", {type: "text/plain"}));
            for (const type of ["dragenter", "dragover", "drop"]) {
                zone.dispatchEvent(new DragEvent(type, {
                    dataTransfer: data, bubbles: true, cancelable: true}));
            }
        }""",
        demo_run.decode(),
    )
    page.get_by_text("Chosen: dropped.tsv").wait_for()
    screenshot(page, screenshots / "submit_dropped.png", full_page=True)
    page.get_by_role("button", name="Submit").click()
    page.wait_for_url("**/runs/*/")
    run = Submission.objects.get(method_name="dropped")
    assert run.original_name == "dropped.tsv" and run.size == len(demo_run)
