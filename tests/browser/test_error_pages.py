"""Issues 43.3 and 43.6 in a real browser: the error pages a person meets (404, 403 at
/new/task/ without the right, 413 for a file over the limit, 429 after too many
logins) are the site's pages with a way on, at 1280 and 390 px (axe finds no serious
violation, nothing scrolls sideways); the upload form warns of a file over the limit
before sending it. Screenshots go to $EVALHUB_SCREENSHOTS (when it is set)."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from playwright.sync_api import expect

from tests.browsers import log_in
from tests.page_audit import DESKTOP, at_both_widths

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

WAY_ON = "The list of tasks"


def _is_site_page(page, title: str) -> None:  # noqa: ANN001
    # Waits for the heading: the page may still be loading the answer.
    expect(page.get_by_role("heading", name=title)).to_be_visible()
    assert page.get_by_role("link", name=WAY_ON).is_visible()
    assert page.locator("a.brand").is_visible()


def test_error_pages_and_the_upload_warning(
    live_server,
    settings,
    django_user_model,
    task,
    phase,
    test_set,
    team,
    participant,
    screenshots,
    browser,
):
    settings.MAX_UPLOAD_BYTES = 64 * 1024
    # A fixed window: both failures fall in one hour but for 1 run in about 2,000.
    settings.LOGIN_RATE = "1/3600"
    settings.TASK_CREATORS = "staff"
    base = live_server.url
    axe = Axe()
    problems: list[str] = []
    context = browser.new_context(viewport=DESKTOP, timezone_id="Europe/Paris")
    page = context.new_page()
    page.set_default_timeout(30_000)

    page.goto(f"{base}/no/such/page/")
    _is_site_page(page, "Page not found")
    problems += at_both_widths(page, axe, screenshots, "error-404")

    log_in(page, base, "alice", "pw-alice-1")
    page.goto(f"{base}/new/task/")
    _is_site_page(page, "Creating tasks needs a right you do not have yet")
    assert page.get_by_text("Ask the site's staff").is_visible()
    problems += at_both_widths(page, axe, screenshots, "error-403-new-task")

    # The form warns before sending a file over the limit, and sends nothing.
    form = base + reverse("competitions:run-submit", args=[task.slug, phase.slug])
    page.goto(form)
    assert page.get_by_text("Size and compressed files").is_visible()
    note = page.locator("#upload-note").text_content() or ""
    assert "At most 64 KiB" in page.content() and "are not accepted" in note
    big = {"name": "big.tsv", "mimeType": "text/plain", "buffer": b"x" * 100_000}
    page.get_by_label("Run file").set_input_files(big)
    page.get_by_label("Method name").fill("m")
    warning = page.locator(".size-warning")
    assert warning.is_visible() and "more than the limit of 64 KiB" in (
        warning.text_content() or ""
    )
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.method == "POST" else None)
    page.get_by_role("button", name="Submit").click()
    page.wait_for_timeout(500)
    assert sent == [] and page.url == form
    problems += at_both_widths(page, axe, screenshots, "upload-too-large-warning")

    # Without the browser's check (no JavaScript), the server's 413 page. The test
    # server (wsgiref) refuses its "Connection: close", so the page comes from the
    # test client and the browser draws it at the form's address.
    client = Client()
    client.force_login(participant)
    answer = client.post(
        form.removeprefix(base),
        {"run": SimpleUploadedFile("big.tsv", b"x" * 100_000), "method_name": "m"},
        HTTP_REFERER=form,
        HTTP_HOST=base.removeprefix("http://"),
    )
    assert answer.status_code == 413
    page.route(
        form,
        lambda route: route.fulfill(
            status=413, body=answer.content, content_type="text/html; charset=utf-8"
        ),
    )
    page.goto(form)
    _is_site_page(page, "File too large")
    assert page.get_by_role("link", name="Back to the page you came from").is_visible()
    problems += at_both_widths(page, axe, screenshots, "error-413")

    other = browser.new_context(viewport=DESKTOP).new_page()
    other.set_default_timeout(30_000)
    for _ in range(2):
        other.goto(f"{base}/accounts/login/")
        other.get_by_label("Username").fill("alice")
        other.get_by_label("Password").fill("wrong")
        # The answer is at the form's own address: wait for it, not for the URL.
        with other.expect_navigation():
            other.get_by_role("button", name="Log in").click()
    _is_site_page(other, "Too many requests")
    assert other.get_by_text("try again in").is_visible()
    problems += at_both_widths(other, axe, screenshots, "error-429")
    assert not problems, "\n".join(problems)
