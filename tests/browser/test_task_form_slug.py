"""The new-task form fills the address (slug) from the title in a real browser,
until the organiser types one; the form works without the script too."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.browsers import log_in
from tests.page_audit import DESKTOP

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_the_slug_follows_the_title_until_typed(live_server, organiser, browser):  # noqa: ANN001
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.set_default_timeout(30_000)
    log_in(page, live_server.url, "org", "pw-organiser-1")
    page.goto(live_server.url + reverse("console:task-create"))
    title = page.locator("#id_title")
    slug = page.locator("#id_slug")
    title.fill("Émile's Terms: ACTER 2026!")
    assert slug.input_value() == "emile-s-terms-acter-2026"
    slug.fill("acter")
    title.fill("Another title")
    assert slug.input_value() == "acter"  # typed by hand: kept
    context.close()
