"""Messages to teams in real Chromium with a real Celery worker: the organiser
writes to the teams with no final run yet, previews the recipients, sends; the
message's page follows the worker by itself (htmx) until every recipient is dealt
with; the mail files the worker wrote reach exactly the filtered teams' members
minus who opted out. Every page passes axe-core and fits a phone; screenshots at
1280 and 390 px go to $EVALHUB_SCREENSHOTS (when it is set)."""

from __future__ import annotations

import uuid

import pytest
from allauth.account.models import EmailAddress
from axe_playwright_python.sync_playwright import Axe
from django.urls import reverse

from evalhub.notifications.services import mail
from tests import mail_files, page_audit
from tests.page_audit import DESKTOP

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_writing_to_teams_from_the_console(
    live_server,
    worker,
    organiser,
    task,
    phase,
    test_set,
    team,
    other_team,
    participant,
    outsider,
    django_user_model,
    screenshots,
    browser,
):  # noqa: ANN001
    bob = django_user_model.objects.create_user("bob")
    team.members.add(bob)
    for user in (participant, outsider, bob):
        EmailAddress.objects.create(
            user=user, email=f"{user.username}@example.org", verified=True, primary=True
        )
    mail.set_wants_mail(user=bob, wanted=False)
    token = uuid.uuid4().hex[:10]

    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(live_server.url + reverse("account_login"))
    page.get_by_label("Username").fill("org")
    page.get_by_label("Password").fill("pw-organiser-1")
    page.get_by_role("button", name="Log in").click()
    page.get_by_text("Signed in as").wait_for()
    page.goto(live_server.url + reverse("console:messages", args=[task.slug]))
    axe = Axe()
    problems = page_audit.at_both_widths(page, axe, screenshots, "messages-list-empty")
    page.get_by_role("link", name="Write a message").click()
    page.locator("#id_subject").fill(f"System papers {token}")
    page.locator("#id_body").fill(
        "Dear participants,\n\nthe **system papers** are due on 1 March."
    )
    page.locator("#id_audience").select_option(label="No final run yet")
    page.get_by_role("button", name="Preview").click()
    preview = page.locator("#preview-heading + p")
    assert "3 members of 2 teams" in preview.inner_text()
    problems += page_audit.at_both_widths(page, axe, screenshots, "messages-preview")
    page.get_by_role("button", name="Send").click()
    progress = page.locator("#message-progress")
    # The page polls the worker's progress by itself: no reload.
    progress.get_by_text("Done").wait_for(timeout=90_000)
    assert "2 of 3 mailed, 1 not mailed" in progress.inner_text()
    problems += page_audit.at_both_widths(page, axe, screenshots, "messages-detail")
    page.get_by_role("link", name="Every message").click()
    assert f"System papers {token}" in page.locator("table").inner_text()
    problems += page_audit.at_both_widths(page, axe, screenshots, "messages-list")
    context.close()
    assert mail_files.recipients(token) == ["alice@example.org", "mallory@example.org"]
    assert not problems, "\n".join(problems)
