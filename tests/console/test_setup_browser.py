"""A new organiser in a real browser (Chromium driven by Playwright) against the live
server: creates a term-extraction task from scratch (the description's live preview,
TermoMeter's τ), adds a phase in their own time zone (Europe/Paris, from the
browser), follows the dashboard's checklist, previews the task as a participant and
as the public, and publishes it. The gold part is the other half's test."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from evalhub.competitions.models import Phase, SharedTask
from tests.browsers import screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_create_phase_checklist_preview_publish(
    live_server, organiser, screenshots, page
):
    base = live_server.url
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill("org")
    page.get_by_label("Password").fill("pw-organiser-1")
    page.get_by_role("button", name="Log in").click()
    page.get_by_text("Signed in as").wait_for()

    page.goto(f"{base}/new/task/")
    page.get_by_label("Term extraction (TermoMeter)").check()
    assert page.get_by_label("Threshold τ").is_visible()
    assert not page.get_by_label("Runs longer than the cap").is_visible()
    page.get_by_label("Title").fill("ACTER terms <2027>")
    page.get_by_label("Slug").fill("acter-2027")
    page.get_by_role("textbox", name="Description").fill(
        "Extract **terms** <script>alert(1)</script>"
    )
    page.locator("#description-preview strong", has_text="terms").wait_for()
    assert "<script" not in page.locator("#description-preview").inner_html()
    page.get_by_label("Threshold τ").fill("0.35")
    screenshot(page, screenshots / "console-task-create.png", full_page=True)
    # Leave the field first, as a person does before reaching the button: the
    # click must not land while the field is still committing its value.
    page.get_by_label("Threshold τ").blur()
    page.get_by_role("button", name="Create the task").click()
    page.get_by_role("heading", name="Before the task can open").wait_for()
    task = SharedTask.objects.get(slug="acter-2027")
    assert task.parsed_settings().tau == 0.35
    assert list(task.organisers.all()) == [organiser]
    checklist = page.locator(".checklist")
    assert "The task has no phase." in checklist.inner_text()
    assert "ACTER terms <2027>" in page.locator("h1").inner_text()  # plain text

    checklist.get_by_role("link", name="Add a phase").click()
    assert page.get_by_label("Time zone").input_value() == "Europe/Paris"
    page.get_by_label("Name").fill("Evaluation")
    page.get_by_label("Slug").fill("evaluation")
    page.get_by_label("Opens at").fill("2030-06-01T10:00")
    page.get_by_label("Closes at").fill("2030-06-30T23:59")
    page.get_by_role("button", name="Save the phase").click()
    page.get_by_role("link", name="Edit Evaluation").wait_for()
    phase = Phase.objects.get(task=task)
    assert phase.opens_at == datetime(2030, 6, 1, 8, 0, tzinfo=UTC)  # CEST = UTC+2
    row = page.locator("tr", has_text="Evaluation").inner_text()
    assert "2030-06-01 10:00" in row and "2030-06-01 08:00 UTC" in row

    page.get_by_role("link", name="Dashboard").click()
    text = page.locator(".checklist").inner_text()
    assert "Phase Evaluation has no test set." in text
    assert "The task has no phase." not in text and "still a draft" in text

    page.get_by_role("link", name="Preview as a participant").first.click()
    banner = page.locator(".preview-banner")
    assert "a participant of an approved team" in banner.inner_text()
    assert page.get_by_role("heading", name="Evaluation").is_visible()
    assert "Your team" in page.locator("main").inner_text()
    page.goto(f"{base}/tasks/acter-2027/dashboard/preview/public/")
    assert "the public will see it" in page.locator(".preview-banner").inner_text()
    assert page.get_by_role("link", name="Log in", exact=True).count() >= 1
    screenshot(page, screenshots / "console-preview-public.png", full_page=True)

    page.goto(f"{base}/tasks/acter-2027/dashboard/settings/")
    page.get_by_label("State").select_option("published")
    page.get_by_role("button", name="Save the settings").click()
    page.get_by_text("The task's settings are saved.").wait_for()
    task.refresh_from_db()
    assert task.state == "published" and task.parsed_settings().tau == 0.35
    page.goto(f"{base}/tasks/acter-2027/dashboard/")
    assert "still a draft" not in page.locator(".checklist").inner_text()


def test_console_pages_pass_axe_and_fit_a_phone(
    live_server, organiser, task, phase, test_set, screenshots, browser
):
    """axe-core finds no serious or critical WCAG A/AA violation on the console's
    pages; at phone width none scrolls sideways."""
    from axe_playwright_python.sync_playwright import Axe

    from evalhub.console.services import people
    from tests.page_audit import AXE_OPTIONS, PHONE
    from tests.page_audit import serious as _serious

    base, slug = live_server.url, task.slug
    paths = {
        "task-create": "/new/task/",
        "settings": f"/tasks/{slug}/dashboard/settings/",
        "phases": f"/tasks/{slug}/dashboard/phases/",
        "phase-edit": f"/tasks/{slug}/dashboard/phases/{phase.slug}/",
        "phase-create": f"/tasks/{slug}/dashboard/phases/new/",
        "ranking": f"/tasks/{slug}/dashboard/phases/{phase.slug}/ranking/",
        "tracks": f"/tasks/{slug}/dashboard/phases/{phase.slug}/tracks/",
        "testsets": f"/tasks/{slug}/dashboard/testsets/",
        "gold-files": f"/tasks/{slug}/dashboard/testsets/{test_set.pk}/files/",
        "factsheet": f"/tasks/{slug}/dashboard/factsheet/",
        "organisers": f"/tasks/{slug}/dashboard/organisers/",
        "announcements": f"/tasks/{slug}/dashboard/announcements/",
        "preview-participant": f"/tasks/{slug}/dashboard/preview/participant/",
        "preview-public": f"/tasks/{slug}/dashboard/preview/public/",
        "dashboard": f"/tasks/{slug}/dashboard/",
        "task-page": f"/tasks/{slug}/",
    }
    people.post_announcement(
        task=task, author=organiser, text="Test data is out: see <the page>."
    )
    axe, problems = Axe(), []
    for size in ({"width": 1280, "height": 900}, PHONE):
        context = browser.new_context(timezone_id="Europe/Paris", viewport=size)
        page = context.new_page()
        page.goto(f"{base}/accounts/login/")
        page.get_by_label("Username").fill("org")
        page.get_by_label("Password").fill("pw-organiser-1")
        page.get_by_role("button", name="Log in").click()
        page.get_by_text("Signed in as").wait_for()
        for name, path in paths.items():
            assert page.goto(base + path).status == 200, path
            width = size["width"]
            screenshot(
                page, screenshots / f"console-{name}-{width}.png", full_page=True
            )
            problems += [
                f"{name} @ {width}: {p}"
                for p in _serious(axe.run(page, options=AXE_OPTIONS))
            ]
            overflow = page.evaluate(
                "document.documentElement.scrollWidth - window.innerWidth"
            )
            if overflow > 0:
                problems.append(f"{name} @ {width}: scrolls sideways by {overflow}px")
        context.close()
    assert not problems, "\n".join(problems)
