"""The console's evaluation after the campaign in a real browser: an organiser opens
a finished task for evaluation through the form and closes it; the page passes
axe (no serious or critical violation) and fits a phone in each of its states
(before the end, not open, open, closed). Screenshots at 1280 and 390 px go to
$EVALHUB_SCREENSHOTS (when it is set)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.urls import reverse
from django.utils import timezone

from evalhub.competitions.models import Phase
from tests import page_audit
from tests.browsers import log_in
from tests.page_audit import DESKTOP

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_open_and_close_it_from_the_console(
    live_server, organiser, task, phase, test_set, screenshots, browser
):  # noqa: ANN001
    url = live_server.url + reverse("console:after-campaign", args=[task.slug])
    context = browser.new_context(viewport=DESKTOP, timezone_id="Europe/Paris")
    page = context.new_page()
    page.set_default_timeout(30_000)
    log_in(page, live_server.url, "org", "pw-organiser-1")
    axe, problems = Axe(), []

    def audit(state: str, address: str = url) -> None:
        problems.extend(
            page_audit.at_both_widths(
                page, axe, screenshots, f"after-campaign-{state}", load=address
            )
        )

    audit("before-the-end")
    assert page.get_by_label("Open until").count() == 0
    now = timezone.now()
    Phase.objects.filter(pk=phase.pk).update(
        opens_at=now - timedelta(days=30), closes_at=now - timedelta(hours=1)
    )
    audit("not-open")
    dashboard = reverse("competitions:task-dashboard", args=[task.slug])
    audit("dashboard", live_server.url + dashboard)  # its panel links here
    page.get_by_role(
        "link", name="Open the task for evaluation after the campaign"
    ).click()
    page.get_by_label("Open until").wait_for()
    page.get_by_label("Open until").fill("2099-01-15T12:00")
    page.get_by_label("Runs per team per day (UTC)").fill("2")
    page.get_by_role("button", name="Open for evaluation").click()
    page.get_by_text("Open for evaluation after the campaign until").first.wait_for()
    after = Phase.objects.get(task=task, after_campaign=True)
    assert after.daily_limit == 2
    audit("open")
    page.get_by_role("button", name="Close it now").click()
    page.get_by_text("Closed since").wait_for()
    audit("closed")
    page.get_by_role("button", name="Open again").click()
    page.get_by_text("Open for evaluation after the campaign until").first.wait_for()
    context.close()
    assert not problems, "\n".join(problems)
