"""Fact sheets in a real browser (Chromium): the organiser adds a question, the
team fills in its method's sheet from the run page and then chooses the run as
final; every fact-sheet page passes axe (no serious or critical WCAG 2.x A/AA
violation) and fits a phone without scrolling sideways. Screenshots go to
$EVALHUB_SCREENSHOTS (when it is set)."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.urls import reverse

from tests.browsers import log_in
from tests.page_audit import DESKTOP, at_both_widths
from tests.rankings.helpers import scored

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _login(browser, live_server, username: str, password: str):  # noqa: ANN001, ANN202
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.set_default_timeout(30_000)
    log_in(page, live_server.url, username, password)
    return context, page


def _audit(page, name: str, screenshots) -> list[str]:  # noqa: ANN001
    return at_both_widths(page, Axe(), screenshots, f"factsheet-{name}")


def test_organiser_asks_team_answers_then_chooses_its_final_run(
    live_server, task, phase, test_set, participant, team, questions, bucc_demo,
    screenshots, browser,
):  # noqa: ANN001  # fmt: skip
    run = scored(phase, participant, bucc_demo.runs[0][2]["test"], "dictionary")
    problems: list[str] = []

    context, page = _login(browser, live_server, "org", "pw-organiser-1")
    page.goto(
        live_server.url + reverse("competitions:task-dashboard", args=[task.slug])
    )
    page.get_by_role("link", name="Questions").click()
    page.get_by_label("Question:").fill("Training time (hours)")
    page.get_by_label("Kind:").select_option("number")
    page.get_by_role("button", name="Add").click()
    page.get_by_text("Question 'Training time (hours)' added.").wait_for()
    problems += _audit(page, "questions", screenshots)
    page.get_by_role("link", name="Edit Training time (hours)").click()
    problems += _audit(page, "question-edit", screenshots)
    context.close()

    context, page = _login(browser, live_server, "alice", "pw-alice-1")
    page.goto(live_server.url + run.get_absolute_url())
    page.get_by_text("2 required questions unanswered").wait_for()
    page.get_by_role("button", name="Choose as final").click()
    page.get_by_text("The fact sheet of method 'dictionary' is incomplete").wait_for()
    page.get_by_role("link", name="Edit the fact sheet of 'dictionary'").click()
    page.get_by_label("External data used? (required):").select_option("yes")
    page.get_by_label("Approach (required):").select_option("neural")
    page.get_by_label("Training time (hours):").fill("lots")
    page.get_by_role("button", name="Save the fact sheet").click()
    page.get_by_text("'lots' is not a number").wait_for()
    page.get_by_label("Training time (hours):").fill("12.5")
    page.get_by_role("button", name="Save the fact sheet").click()
    page.get_by_text("Fact sheet of 'dictionary' saved.").wait_for()
    page.get_by_text("Complete.").wait_for()
    problems += _audit(page, "sheet", screenshots)
    page.goto(
        live_server.url
        + reverse("factsheets:team-sheets", args=[task.slug, phase.slug])
    )
    problems += _audit(page, "team-sheets", screenshots)
    page.goto(live_server.url + run.get_absolute_url())
    page.get_by_text("External data used?: yes").wait_for()
    page.get_by_role("button", name="Choose as final").click()
    page.get_by_text(f"Run {run.pk} is now one of your final runs.").wait_for()
    problems += _audit(page, "run", screenshots)
    page.goto(
        live_server.url
        + reverse("competitions:leaderboard-detail", args=[task.slug, phase.slug])
    )
    page.get_by_role("columnheader", name="External data used?").wait_for()
    problems += _audit(page, "leaderboard", screenshots)
    context.close()
    assert not problems, "\n".join(problems)
