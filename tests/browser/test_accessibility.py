"""Accessibility and phone audit of every page a role reaches, in a real browser
(Debian's Chromium driven by Playwright), on the seeded demo site (the demo tasks
with their runs scored and their statistics computed, the two-track demo too).

For each role — a visitor, a participant with a team and runs, an organiser of
the demo tasks (not staff), a staff member — the pages are found by crawling from
the home page and the MT-probe demo's board (tests/page_audit.py: same-site links
and GET forms such as a board's compare form, no logout, no downloads, at most
two pages per URL pattern), not listed by hand; a compare page's figures are
drawn first, as the worker would. Each page, at 1280 and at 390 px: axe-core
(WCAG 2.x A/AA, colour contrast included) finds no serious or critical
violation; nothing is wider than the screen except a table or a figure in a box
that says it scrolls; every text, a figure's as displayed included, is at least
11 px. Each page is loaded once, at 1280 px, then shown at 390 px in the same
window: the server answers the same page whatever the width, and the browser
follows the new width as a phone's would show it (the styles' media queries, a
figure's phone form from its ``<picture>`` source, the scroll hints evalhub.js
places with a ``ResizeObserver``); a figure still shown in its wide form would fail
the 11 px check. Loading every page a second time at 390 px cost the crawl a sixth
of its CPU (``bench/README.md``). With $EVALHUB_SCREENSHOTS set, every page is saved
there at both sizes: look at them."""

from __future__ import annotations

import re
from collections import Counter
from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import resolve

from evalhub.api.services import tokens
from evalhub.competitions.models import Phase, SharedTask, Submission
from evalhub.competitions.services.boards import analyses, compare_figures
from evalhub.competitions.services.data import demo
from evalhub.competitions.services.runs import scoring
from evalhub.rankings import jobs
from tests import browsers, page_audit
from tests.browser.demo_world import (  # noqa: F401 - fixtures
    demo_tasks,
    module_world,
    transactional_db,
)

#: One demo site for the four roles (tests/browser/demo_world.py): each role's crawl
#: only reads pages (GET requests and forms, no logout), signs its own user in (a
#: session of its own) and draws the compare figures of the pages it opens, as the
#: worker would (drawn again, or already there, for the next role: the same
#: figures of the same runs).
pytestmark = [pytest.mark.e2e]

SIZES = (
    ("desktop", {"width": 1280, "height": 900}),
    ("phone", {"width": 390, "height": 844}),
)

#: The MT-probe demo's board, where the crawl starts too (after the home page):
#: its run pages and its compare page draw figures of their own, which the first
#: two of each pattern found from the home page (other tasks') would not show.
MT_PROBE_BOARD = "/tasks/demo-mt-lexicon-probe/evaluation/leaderboard/"


@pytest.fixture(scope="module")
def demo_site(demo_tasks):  # noqa: ANN001, ANN201, F811
    """The seeded demo site and one user per role: (role, user or None)."""
    tasks, runs = demo_tasks
    django_user_model = get_user_model()
    tracked = demo.seed_tracks_demo()
    for sub in Submission.objects.filter(phase__task=tracked):
        scoring.score_submission(submission_id=sub.pk)
    for test_set in tracked.phases.get().test_sets.all():
        jobs.refresh_statistics(test_set.pk)
        analyses.refresh(test_set_id=test_set.pk)
    organiser = django_user_model.objects.create_user("org", "org@example.org")
    for task in SharedTask.objects.all():
        task.organisers.add(organiser)
    staff = django_user_model.objects.create_user(
        "staff", "staff@example.org", is_staff=True
    )
    # Each signed-in role holds an API token: the tokens page lists it.
    participant = runs[0].submitter
    tokens.create(user=participant, name="laptop", expires_at=None)
    tokens.create(
        user=organiser,
        name="task pushes from the CI of the organisers",
        scope="organise",
        tasks=SharedTask.objects.all(),
    )
    tokens.create(user=staff, name="read", scope="read")
    return {
        "anonymous": None,
        "participant": participant,
        "organiser": organiser,
        "staff": staff,
    }


def _draw_compare_figures(url: str) -> None:
    """What the worker does for a compare page the crawl opens: its figures drawn
    over its runs (all public in the demo) on each test set of its phase."""
    match = resolve(urlsplit(url).path)
    phase = Phase.objects.get(
        task__slug=match.kwargs["slug"], slug=match.kwargs["phase"]
    )
    run_ids = [int(r) for r in parse_qs(urlsplit(url).query)["runs"]]
    for test_set in phase.test_sets.all():
        compare_figures.draw(test_set_id=test_set.pk, run_ids=run_ids)


def _sign_in(context, base: str, user) -> None:  # noqa: ANN001
    if user is None:
        return
    client = Client()
    client.force_login(user)
    cookie = client.cookies["sessionid"]
    context.add_cookies([{"name": "sessionid", "value": cookie.value, "url": base}])


@pytest.mark.parametrize("role", ["anonymous", "participant", "organiser", "staff"])
def test_every_page_passes_axe_fits_and_reads(
    role, live_server, demo_site, browser, screenshots
):  # noqa: ANN001
    user = demo_site[role]
    shots = browsers.screenshots_wanted()
    context = browser.new_context(viewport=SIZES[0][1], timezone_id="Europe/Paris")
    context.add_init_script(page_audit.axe_script())
    _sign_in(context, live_server.url, user)
    page = context.new_page()
    page.set_default_timeout(30_000)
    problems: list[str] = []
    visited: list[str] = []
    seen: Counter[str] = Counter()
    for name, url in page_audit.crawl(page, live_server.url, ("/", MT_PROBE_BOARD)):
        visited.append(url)
        seen[name] += 1
        shot = re.sub(r"[^\w]+", "-", name.rpartition(":")[2]).strip("-")
        shot += f"-{seen[name]}" if seen[name] > 1 else ""
        if name == "competitions:runs-compare":
            _draw_compare_figures(url)
            page.goto(url)
            assert page.locator("main img").count(), f"{url}: no figure drawn"
        for size_name, size in SIZES:
            page.set_viewport_size(size)
            where = f"{name} {url.removeprefix(live_server.url)} ({size_name})"
            problems += page_audit.audit(page, page_audit.axe_violations, where)
            if shots:  # <role>-<URL name>[-<n-th of its pattern>]-<size>.png
                page.screenshot(
                    path=str(screenshots / f"{role}-{shot}-{size_name}.png"),
                    full_page=True,
                )
        page.set_viewport_size(SIZES[0][1])  # the crawl goes on at 1280 px
    context.close()
    (screenshots / f"crawl-{role}.txt").write_text("\n".join(visited) + "\n")
    assert len(visited) > 5, visited
    assert seen["competitions:runs-compare"], "no compare page reached"
    assert any(MT_PROBE_BOARD in url for url in visited), visited
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems)
