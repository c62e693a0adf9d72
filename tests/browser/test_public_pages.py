"""The public pages of the four demo tasks in a real browser (Debian's Chromium via
Playwright): no console error (the favicon included) on the home, task,
leaderboard and run pages; at 1280 px every leaderboard table's default columns fit
its box (nothing clipped behind a scroll bar) and "Show all metrics" reveals the
rest without JavaScript; at 390 px no page scrolls sideways."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.browser.demo_world import (  # noqa: F401 - fixtures
    demo_tasks,
    module_world,
    transactional_db,
)

#: The demo site is built once for the module (tests/browser/demo_world.py): no
#: ``django_db`` marker.
pytestmark = [pytest.mark.e2e]

DESKTOP = {"width": 1280, "height": 900}
#: The smallest text of a figure <img> as displayed, in CSS px: matplotlib draws text
#: as glyph paths at 100 units per point of font size (``scale(s -s)`` = size / 100)
#: in a viewBox measured in points, shown at the image's width.
SMALLEST_TEXT_PX = """async img => {
  const svg = await (await fetch(img.src)).text();
  const box = /viewBox="[-\\d.]+ [-\\d.]+ ([\\d.]+)/.exec(svg);
  const sizes = [...svg.matchAll(/scale\\(([\\d.]+) -\\1\\)/g)]
    .map(m => parseFloat(m[1]) * 100);
  return sizes.length ? Math.min(...sizes) * img.clientWidth / parseFloat(box[1]) : null;
}"""
PHONE = {"width": 390, "height": 844}


def test_public_pages_fit_and_log_no_error(live_server, demo_tasks, browser):  # noqa: ANN001, F811
    tasks, runs = demo_tasks
    boards = [
        reverse("competitions:leaderboard-detail", args=[t.slug, "evaluation"])
        for t in tasks
    ]
    pages = [
        reverse("competitions:task-list"),
        *(reverse("competitions:task-detail", args=[t.slug]) for t in tasks),
        *boards,
        reverse("competitions:run-detail", args=[runs[0].pk]),
    ]
    context = browser.new_context(viewport=DESKTOP, timezone_id="Europe/Paris")
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on(
        "console",
        lambda m: errors.append(f"{page.url}: {m.text}") if m.type == "error" else None,
    )
    page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))
    problems: list[str] = []
    for path in pages:
        for name, size in (("desktop", DESKTOP), ("phone", PHONE)):
            page.set_viewport_size(size)
            response = page.goto(live_server.url + path)
            assert response is not None and response.status == 200, path
            overflow = page.evaluate(
                "document.documentElement.scrollWidth - window.innerWidth"
            )
            if overflow > 1:
                problems.append(f"{path} ({name}) scrolls sideways by {overflow}px")
            if path in boards and name == "desktop":
                clipped = page.evaluate(
                    """() => [...document.querySelectorAll('section.board table')]
                    .filter(t => t.scrollWidth > t.parentElement.clientWidth)
                    .map(t => t.scrollWidth + ' > ' + t.parentElement.clientWidth)"""
                )
                if clipped:
                    problems.append(f"{path}: tables clipped at 1280 px: {clipped}")
    assert not problems, "\n".join(problems)

    # Figures: one at a time, chosen in a list, each shown at the size it is drawn
    # (text as large as drawn: at least 11 px).
    page.set_viewport_size(DESKTOP)
    small_text: list[str] = []
    (bucc,) = (
        b
        for b, t in zip(boards, tasks, strict=True)
        if t.task_type == "bilingual_term_alignment"
    )
    for path in boards:
        page.goto(live_server.url + path)
        select = page.locator(".figure-choice select").first
        options = select.locator("option").count()
        assert options >= 2, path
        for i in range(options):
            select.select_option(str(i))
            shown = page.locator(".figure-area").first.locator(
                "figure:not([hidden]) img"
            )
            assert shown.count() == 1, (path, i)
            shown.scroll_into_view_if_needed()
            page.wait_for_function("img => img.complete", arg=shown.element_handle())
            natural, width = shown.evaluate("i => [i.naturalWidth, i.clientWidth]")
            assert width >= natural - 1, (path, i, natural, width)
            smallest = shown.evaluate(SMALLEST_TEXT_PX)
            if smallest is not None and smallest < 11:
                small_text.append(f"{path} figure {i}: text {smallest:.1f} px high")
        scales = page.locator(".figure-choice select").nth(1)
        if path == bucc:
            # A figure drawn with a linear and a log x axis is one entry.
            titles = select.locator("option").all_inner_texts()
            assert not [t for t in titles if "(log" in t], titles
            select.select_option(label="Precision, recall, F1: precision")
            assert scales.is_visible()
            assert scales.locator("option").all_inner_texts() == ["linear", "log x"]
            scales.select_option("log")
            shown = page.locator(".figure-area").first.locator(
                "figure:not([hidden]) img"
            )
            assert shown.get_attribute("alt") == (
                "Precision, recall, F1 (log x): precision"
            )
    assert not small_text, "\n".join(small_text)
    assert not errors, "\n".join(errors)
    context.close()

    # The other metrics are one click away, without JavaScript.
    context = browser.new_context(viewport=DESKTOP, java_script_enabled=False)
    page = context.new_page()
    page.goto(live_server.url + bucc)
    area = page.locator(".figure-area").first.locator("figure")
    assert area.count() >= 2
    assert all(area.nth(i).is_visible() for i in range(area.count()))  # all shown
    extra = page.locator("table.board-table th.metric-extra").first
    assert not extra.is_visible()
    page.locator("label.all-metrics-label").first.click()
    assert extra.is_visible()
    context.close()

    favicon = browser.new_page().request.get(live_server.url + "/favicon.ico")
    assert favicon.ok and favicon.headers["content-type"].startswith("image/svg")
