"""Browser test: real Chromium (Playwright) against the live server. The leaderboard
shows "value ± CI", rank bands and the interval chart; the significance page shows
the p-value matrix and its exports."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evalhub.competitions.services import teams
from evalhub.rankings import jobs
from tests.browsers import screenshot
from tests.rankings.helpers import scored

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_leaderboard_intervals_chart_and_matrix(
    live_server, task, phase, test_set, bucc_demo, django_user_model, screenshots, page
):
    for i, (_, method, files) in enumerate(bucc_demo.runs):
        user = django_user_model.objects.create_user(f"b{i}")
        teams.register(task=task, user=user, new_team_name=f"Team {i}")
        scored(phase, user, files["test"], method)
    jobs.refresh_statistics(test_set.pk)

    url = live_server.url + reverse(
        "competitions:leaderboard-detail", args=[task.slug, phase.slug]
    )
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.goto(url)
    cells = page.locator("td.ci").all_inner_texts()
    assert len(cells) == 3 and all(" ± " in c for c in cells)
    chart = page.locator("img[src*='intervals.svg']")
    chart.scroll_into_view_if_needed()
    page.wait_for_function(
        "img => img.complete && img.naturalWidth > 0", arg=chart.element_handle()
    )
    screenshot(page, screenshots / "rankings-leaderboard.png", full_page=True)
    page.get_by_role("link", name="pairwise significance").click()
    page.wait_for_url("**/significance/")
    assert page.locator("table.matrix tbody tr").count() == 3
    assert page.locator("table.matrix strong").count() == 6  # all pairs differ
    screenshot(page, screenshots / "rankings-significance.png", full_page=True)
