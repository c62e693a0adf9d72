"""The data terms and the roster in real Chromium: the organiser writes terms and a
licence on the console's page; a participant follows a file link, is sent to the
terms, accepts them and gets the file; the organiser's Participants page shows the
acceptance. Every page passes axe-core and fits 1280 and 390 px; screenshots go to
$EVALHUB_SCREENSHOTS (when it is set)."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.urls import reverse

from tests import page_audit
from tests.page_audit import DESKTOP

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _login(browser, url: str, username: str, password: str):  # noqa: ANN001, ANN202
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(url + reverse("account_login"))
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.get_by_text("Signed in as").wait_for()
    return page


def test_terms_accepted_in_the_browser_then_the_file_and_the_roster(
    live_server, organiser, participant, team, task, test_set, screenshots, browser
):  # noqa: ANN001
    axe = Axe()
    problems: list[str] = []
    org = _login(browser, live_server.url, "org", "pw-organiser-1")
    org.goto(live_server.url + reverse("console:data-terms", args=[task.slug]))
    org.get_by_label("Licence").fill("CC-BY-4.0")
    org.get_by_label("Terms of use of the data (Markdown)").fill(
        "Use the data for **research** only, and cite the overview paper."
    )
    org.get_by_role("button", name="Save").click()
    org.get_by_text("Terms version 1 is in force").wait_for()
    problems += page_audit.at_both_widths(org, axe, screenshots, "terms-console-terms")

    alice = _login(browser, live_server.url, "alice", "pw-alice-1")
    file_url = reverse("competitions:testset-file", args=[test_set.pk, "source_terms"])
    assert alice.request.get(live_server.url + file_url, max_redirects=0).status == 302
    alice.goto(live_server.url + task.get_absolute_url())
    problems += page_audit.at_both_widths(alice, axe, screenshots, "terms-task-page")
    alice.get_by_role("link", name="terms of use").click()
    alice.get_by_text("research", exact=True).wait_for()
    problems += page_audit.at_both_widths(alice, axe, screenshots, "terms-terms-page")
    alice.get_by_label("I have read these terms").check()
    alice.get_by_role("button", name="Accept the terms").click()
    alice.get_by_text("You accepted the data terms of").wait_for()
    assert alice.request.get(live_server.url + file_url).status == 200

    org.goto(live_server.url + reverse("console:participants", args=[task.slug]))
    row = org.get_by_role("row", name="Alpha")
    assert "v1" in row.inner_text()
    problems += page_audit.at_both_widths(org, axe, screenshots, "terms-participants")
    assert not problems, "\n".join(problems)
