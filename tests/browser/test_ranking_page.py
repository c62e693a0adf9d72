"""The console's ranking page in real Chromium: the organiser chooses the metric
that ranks (F1 instead of AP) and the board's columns, saves, and the leaderboard
says it is ranked by F1, its rows in F1 order once the statistics job ran. The page
passes axe-core and fits a phone; screenshots at 1280 and 390 px go to
$EVALHUB_SCREENSHOTS (when it is set)."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.urls import reverse

from evalhub.competitions.services import teams
from evalhub.rankings import jobs
from tests import page_audit
from tests.browsers import screenshots_wanted
from tests.page_audit import DESKTOP, PHONE
from tests.rankings.helpers import scored
from tests.rankings.test_ranking_metric import _runs

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_choosing_the_ranking_metric_on_the_console(  # noqa: PLR0913
    live_server, organiser, task, phase, test_set, bucc_demo, django_user_model,
    screenshots, browser,
):  # fmt: skip
    for name, data in _runs(bucc_demo).items():
        user = django_user_model.objects.create_user(f"b-{name}")
        teams.register(task=task, user=user, new_team_name=f"Team {name}")
        scored(phase, user, data, name)
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(live_server.url + reverse("account_login"))
    page.get_by_label("Username").fill("org")
    page.get_by_label("Password").fill("pw-organiser-1")
    page.get_by_role("button", name="Log in").click()
    page.get_by_text("Signed in as").wait_for()
    page.goto(
        live_server.url + reverse("console:ranking", args=[task.slug, "evaluation"])
    )
    page.get_by_label("Ranking metric").select_option("f1")
    page.get_by_label("Board columns").fill("f1, ap, p_at_100")
    page.get_by_label("Overall ranking").select_option("average_rank")
    axe = Axe()
    problems = page_audit.at_both_widths(page, axe, screenshots, "ranking-settings")
    page.get_by_role("button", name="Save the ranking settings").click()
    page.get_by_text("Ranking metric, Board columns, Overall ranking").wait_for()
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"

    page.goto(
        live_server.url
        + reverse("competitions:leaderboard-detail", args=[task.slug, "evaluation"])
    )
    board = page.locator(f"#testset-{test_set.pk}")
    assert (
        "Ranked by F1 (f1; higher is better, chosen by the organisers)."
        in board.inner_text()
    )
    teams_in_order = [
        t.strip() for t in board.locator("tbody th.team").all_inner_texts()
    ]
    if screenshots_wanted():
        for name, size in (("desktop", DESKTOP), ("phone", PHONE)):
            page.set_viewport_size(size)
            page.screenshot(
                path=str(screenshots / f"ranked-by-f1-{name}.png"), full_page=True
            )
    assert not problems, problems
    assert teams_in_order[:3] == ["Team top", "Team dictionary", "Team roots"], (
        teams_in_order
    )
