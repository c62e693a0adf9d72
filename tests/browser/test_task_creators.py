"""Site staff grant the right to create tasks on /staff/creators/ in a real browser;
the granted user then follows the home page's "Create a task" to /new/task/. At
desktop and phone width: axe-core finds no serious violation and no page scrolls
sideways; no request goes to /admin/. Screenshots go to $EVALHUB_SCREENSHOTS
(when it is set)."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe

from tests.browsers import log_in
from tests.page_audit import DESKTOP, at_both_widths

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_staff_grant_the_right_and_the_user_creates_a_task(
    live_server, django_user_model, screenshots, browser
):
    django_user_model.objects.create_user(
        "siteadmin", password="pw-siteadmin-1", is_staff=True
    )
    django_user_model.objects.create_user(
        "carol", password="pw-carol-1", email="carol@lab.example.org"
    )
    django_user_model.objects.create_user("carl", email="carl@example.org")
    base = live_server.url
    axe = Axe()
    visited: list[str] = []
    problems: list[str] = []

    context = browser.new_context(viewport=DESKTOP, timezone_id="Europe/Paris")
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.on("request", lambda request: visited.append(request.url))
    log_in(page, base, "siteadmin", "pw-siteadmin-1")
    page.get_by_role("link", name="Task creators").click()
    page.get_by_label("User name or e-mail address").fill("lab.example")
    page.get_by_role("button", name="Search").click()
    page.get_by_role("button", name="Grant the right to carol").click()
    page.get_by_text("The right to create tasks is granted to carol.").wait_for()
    assert page.get_by_text("granted to carol by siteadmin").count() == 1
    problems += at_both_widths(page, axe, screenshots, "staff-creators")
    context.close()

    context = browser.new_context(viewport=DESKTOP, timezone_id="Europe/Paris")
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.on("request", lambda request: visited.append(request.url))
    log_in(page, base, "carol", "pw-carol-1")
    problems += at_both_widths(page, axe, screenshots, "creator-home")
    page.get_by_role("main").get_by_role("link", name="Create a task").click()
    page.wait_for_url(f"{base}/new/task/")
    page.get_by_role("heading", level=1).wait_for()
    problems += at_both_widths(page, axe, screenshots, "creator-new-task")
    context.close()

    assert not problems, "\n".join(problems)
    assert not [url for url in visited if "/admin/" in url]
