"""The settings page's archive panel in real Chromium with a real Celery worker:
the organiser clicks "Write the archive", the panel follows the export by itself
(htmx polling) until it is ready, and in each state it shows (none, writing,
ready, failed) the page passes axe-core and fits a phone. Screenshots of every
state at 1280 and 390 px go to $EVALHUB_SCREENSHOTS (default: the test's tmp
folder)."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.urls import reverse
from django.utils import timezone

from evalhub.console.models import ArchiveExport
from tests.page_audit import AXE_OPTIONS, DESKTOP, PHONE
from tests.page_audit import serious as _serious

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _audit(page, axe, screenshots, state: str) -> list[str]:  # noqa: ANN001
    problems: list[str] = []
    for size_name, size in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(size)
        page.locator("#archive-panel").scroll_into_view_if_needed()
        page.screenshot(
            path=str(screenshots / f"archive-{state}-{size_name}.png"), full_page=True
        )
        where = f"archive panel {state} ({size_name})"
        problems += [
            f"{where}: {p}" for p in _serious(axe.run(page, options=AXE_OPTIONS))
        ]
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - window.innerWidth"
        )
        if overflow > 1:
            problems.append(f"{where}: the page scrolls sideways by {overflow}px")
    return problems


def test_the_archive_panel_follows_the_worker_and_passes_axe(
    live_server, worker, organiser, task, phase, test_set, screenshots, browser
):  # noqa: ANN001
    settings_url = live_server.url + reverse("console:task-settings", args=[task.slug])
    context = browser.new_context(viewport=DESKTOP, timezone_id="Europe/Paris")
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(live_server.url + reverse("account_login"))
    page.get_by_label("Username").fill("org")
    page.get_by_label("Password").fill("pw-organiser-1")
    page.get_by_role("button", name="Log in").click()
    page.get_by_text("Signed in as").wait_for()
    page.goto(settings_url)
    axe = Axe()
    panel = page.locator("#archive-panel")
    assert "No archive written yet" in panel.inner_text()
    problems = _audit(page, axe, screenshots, "none")

    page.set_viewport_size(DESKTOP)
    page.get_by_role("button", name="Write the archive").click()
    # The panel polls the worker's progress by itself: no reload.
    page.locator("#archive-panel a", has_text="Download the archive").wait_for(
        timeout=90_000
    )
    assert "Ready" in panel.inner_text()
    problems += _audit(page, axe, screenshots, "ready")

    export = ArchiveExport.objects.get(task=task)
    for state, fields in (
        (
            "writing",
            {"status": "writing", "started_at": timezone.now(), "stage": "files",
             "progress_done": 3, "progress_total": 10},
        ),
        (
            "failed",
            {"status": "failed", "finished_at": timezone.now(), "stage": "",
             "failure": "Writing it took longer than the limit of 15 minutes."},
        ),
    ):  # fmt: skip
        # States a real export passes through too quickly to look at.
        ArchiveExport.objects.filter(pk=export.pk).update(**fields)
        page.set_viewport_size(DESKTOP)
        page.goto(settings_url)
        problems += _audit(page, axe, screenshots, state)
    context.close()
    assert not problems, "\n".join(problems)
