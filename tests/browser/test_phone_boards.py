"""The demo leaderboards on a phone (390 x 844) in a real browser: the primary score
of every ranked row is inside the viewport, beside the team, without scrolling
sideways (and not under a sticky column); "Show every column" brings the rest; the
signed-in viewer's own row says "you" and the board's times carry the one zone the
footer names; the "My runs" page fits too."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.browser.demo_world import (  # noqa: F401 - fixtures
    demo_tasks,
    module_world,
    transactional_db,
)
from tests.browser.test_public_pages import PHONE

#: One demo site for both tests (tests/browser/demo_world.py): the first reads the
#: boards, the second signs a participant in (a session of its own) and reads.
pytestmark = [pytest.mark.e2e]

#: Every ranked row's primary score cell that is not fully inside the viewport, or
#: that another element (a sticky column) covers at its centre; the window is
#: scrolled down to each row (never sideways).
PRIMARY_OUTSIDE = """() => [...document.querySelectorAll(
    'section.board tbody:not(.baselines) td.primary')]
  .map(td => {
    window.scrollTo(0, td.getBoundingClientRect().top + window.scrollY - 200);
    const box = td.getBoundingClientRect();
    const hit = document.elementFromPoint(
      box.left + box.width / 2, box.top + box.height / 2);
    const inside = box.left >= 0 && box.right <= window.innerWidth && box.width > 0;
    return inside && (hit === td || td.contains(hit)) ? null
      : `${td.textContent.trim()} at ${Math.round(box.left)}..${Math.round(box.right)}`;
  })
  .filter(x => x)"""


def _signed_in(context, live_server, user) -> None:  # noqa: ANN001
    client = Client()
    client.force_login(user)
    cookie = client.cookies["sessionid"]
    context.add_cookies(
        [{"name": "sessionid", "value": cookie.value, "url": live_server.url}]
    )


def test_the_primary_score_is_on_screen_on_every_demo_board(
    live_server,
    demo_tasks,  # noqa: F811
    browser,
):  # noqa: ANN001
    tasks, runs = demo_tasks
    context = browser.new_context(viewport=PHONE, timezone_id="Europe/Paris")
    page = context.new_page()
    page.set_default_timeout(30_000)
    problems: list[str] = []
    for task in tasks:
        url = live_server.url + reverse(
            "competitions:leaderboard-detail", args=[task.slug, "evaluation"]
        )
        page.goto(url)
        rows = page.locator("section.board tbody:not(.baselines) td.primary").count()
        assert rows, f"{task.slug}: no ranked row"
        outside = page.evaluate(PRIMARY_OUTSIDE)
        if outside:
            problems.append(f"{task.slug}: primary score off screen: {outside}")
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - window.innerWidth"
        )
        if overflow > 1:
            problems.append(f"{task.slug}: the page scrolls sideways by {overflow}px")
        # The other columns are one tap away (no JavaScript needed).
        first = page.locator("section.board").first
        submitted = first.locator("td.when").first
        if submitted.is_visible():
            problems.append(f"{task.slug}: 'Submitted' shown before the toggle")
        first.locator(".all-metrics-label").click()
        if not submitted.is_visible():
            problems.append(f"{task.slug}: 'Submitted' not shown by the toggle")
    assert not problems, "\n".join(problems)


def test_own_row_and_times_on_a_phone(live_server, demo_tasks, browser):  # noqa: ANN001, F811
    tasks, runs = demo_tasks
    run = runs[0]
    task = run.phase.task
    context = browser.new_context(viewport=PHONE, timezone_id="Europe/Paris")
    _signed_in(context, live_server, run.submitter)
    page = context.new_page()
    page.set_default_timeout(30_000)
    board = live_server.url + reverse(
        "competitions:leaderboard-detail", args=[task.slug, "evaluation"]
    )
    # A first visit, before the browser has told the server its zone: the times
    # are already in the browser's zone (redrawn from UTC), as on every next page.
    page.goto(board)
    assert page.locator("[data-tz-shown]").inner_text() == "Europe/Paris"
    first = {t.rsplit(" ", 1)[1] for t in page.locator("time").all_inner_texts()}
    assert first and first <= {"CET", "CEST"}, first
    page.goto(board)
    assert page.locator("[data-tz-shown]").inner_text() == "Europe/Paris"
    page.locator("section.board").first.locator(".all-metrics-label").click()
    labels = {
        t.rsplit(" ", 1)[1]
        for t in page.locator("section.board time").all_inner_texts()
    }
    assert labels and labels <= {"CET", "CEST"}, labels
    page.locator("section.board").first.locator(".all-metrics-label").click()

    you = page.locator("section.board .you")
    assert you.count() == 1 and you.inner_text() == "you"
    row = page.locator("section.board tr", has=page.locator(".you"))
    assert run.team.name in row.locator("th.team").inner_text()
    box = row.locator("td.primary").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390

    # The run page and My runs: the same time, zone named; nothing sideways.
    page.goto(live_server.url + reverse("competitions:run-detail", args=[run.pk]))
    assert page.locator(".run-rank").first.inner_text().startswith("Rank ")
    shown = {t.rsplit(" ", 1)[1] for t in page.locator("time").all_inner_texts()}
    assert shown and shown <= {"CET", "CEST"}, shown
    page.goto(live_server.url + reverse("competitions:own-run-list", args=[task.slug]))
    assert page.get_by_text(f"#{run.pk}", exact=True).is_visible()
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1
