"""The settings page's archive panel in real Chromium with a real Celery worker:
the organiser clicks "Write the archive", the panel follows the export by itself
(htmx polling) until it is ready, and in each state it shows (none, writing,
ready, failed) the page passes axe-core and fits a phone. Screenshots of every
state at 1280 and 390 px go to $EVALHUB_SCREENSHOTS (when it is set)."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.urls import reverse
from django.utils import timezone

from evalhub.console.models import ArchiveExport
from tests.browsers import log_in
from tests.page_audit import DESKTOP, at_both_widths

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_the_archive_panel_follows_the_worker_and_passes_axe(
    live_server, worker, organiser, task, phase, test_set, screenshots, browser
):  # noqa: ANN001
    settings_url = live_server.url + reverse("console:task-settings", args=[task.slug])
    context = browser.new_context(viewport=DESKTOP, timezone_id="Europe/Paris")
    page = context.new_page()
    page.set_default_timeout(30_000)
    log_in(page, live_server.url, "org", "pw-organiser-1")
    page.goto(settings_url)
    axe = Axe()
    panel = page.locator("#archive-panel")
    assert "No archive written yet" in panel.inner_text()
    problems = at_both_widths(page, axe, screenshots, "archive-none")

    page.get_by_role("button", name="Write the archive").click()
    # The panel polls the worker's progress by itself: no reload.
    page.locator("#archive-panel a", has_text="Download the archive").wait_for(
        timeout=90_000
    )
    assert "Ready" in panel.inner_text()
    problems += at_both_widths(page, axe, screenshots, "archive-ready")

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
        page.goto(settings_url)
        problems += at_both_widths(page, axe, screenshots, f"archive-{state}")
    context.close()
    assert not problems, "\n".join(problems)
