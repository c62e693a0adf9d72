"""Accessibility and phone audit of every page a role reaches, in a real browser
(Debian's Chromium driven by Playwright), on the seeded demo site (the demo tasks
with their runs scored and their statistics computed, the two-track demo too).

For each role — a visitor, a participant with a team and runs, an organiser of
the demo tasks (not staff), a staff member — the pages are found by crawling from
the home page (tests/page_audit.py: same-site links, GET only, no logout, no
downloads, at most two pages per URL pattern), not listed by hand. Each page, at
1280 and at 390 px: axe-core (WCAG 2.x A/AA, colour contrast included) finds no
serious or critical violation; nothing is wider than the screen except a table in
a box that says it scrolls; every text, a figure's as displayed included, is at
least 11 px. With $EVALHUB_SCREENSHOTS set, every page is saved there at both
sizes: look at them."""

from __future__ import annotations

import os
import re
from collections import Counter

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.test import Client

from evalhub.api.services import tokens
from evalhub.competitions.models import SharedTask, Submission
from evalhub.competitions.services.boards import analyses
from evalhub.competitions.services.data import demo
from evalhub.competitions.services.runs import scoring
from evalhub.rankings import jobs
from tests import page_audit
from tests.browser.test_public_pages import demo_tasks  # noqa: F401 - a fixture

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SIZES = (
    ("desktop", {"width": 1280, "height": 900}),
    ("phone", {"width": 390, "height": 844}),
)

#: Pages whose figures another piece of work owns (issue 43 items 7 and 10),
#: by URL name: crawled and audited like every page, but what they alone fail
#: marks the test xfail (as strict=False: it passes once they pass). The compare
#: page is reached through a form, not a link; the MT-probe run figure is on
#: run pages of the MT-probe demo, which the crawl's two run pages are not.
OTHERS = {
    "competitions:runs-compare": "the compare page (its figures: issue 43 item 7)",
}


@pytest.fixture
def demo_site(demo_tasks, django_user_model):  # noqa: ANN001, ANN201, F811
    """The seeded demo site and one user per role: (role, user or None)."""
    tasks, runs = demo_tasks
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


def _sign_in(context, base: str, user) -> None:  # noqa: ANN001
    if user is None:
        return
    client = Client()
    client.force_login(user)
    cookie = client.cookies["sessionid"]
    context.add_cookies([{"name": "sessionid", "value": cookie.value, "url": base}])


def _known(problem: str) -> str | None:
    """Whose work a problem is, when it is another piece of work's."""
    for name, reason in OTHERS.items():
        if problem.startswith(name + " "):
            return reason
    return None


@pytest.mark.parametrize("role", ["anonymous", "participant", "organiser", "staff"])
def test_every_page_passes_axe_fits_and_reads(
    role, live_server, demo_site, browser, screenshots
):  # noqa: ANN001
    user = demo_site[role]
    shots = bool(os.environ.get("EVALHUB_SCREENSHOTS"))
    axe = Axe()
    context = browser.new_context(viewport=SIZES[0][1], timezone_id="Europe/Paris")
    _sign_in(context, live_server.url, user)
    page = context.new_page()
    page.set_default_timeout(30_000)
    problems: list[str] = []
    visited: list[str] = []
    seen: Counter[str] = Counter()
    for name, url in page_audit.crawl(page, live_server.url):
        visited.append(url)
        seen[name] += 1
        shot = re.sub(r"[^\w]+", "-", name.rpartition(":")[2]).strip("-")
        shot += f"-{seen[name]}" if seen[name] > 1 else ""
        for size_name, size in SIZES:
            if size_name != "desktop":
                page.set_viewport_size(size)
                page.goto(url)
            where = f"{name} {url.removeprefix(live_server.url)} ({size_name})"
            problems += page_audit.audit(
                page, lambda p: axe.run(p, options=page_audit.AXE_OPTIONS), where
            )
            if shots:  # <role>-<URL name>[-<n-th of its pattern>]-<size>.png
                page.screenshot(
                    path=str(screenshots / f"{role}-{shot}-{size_name}.png"),
                    full_page=True,
                )
        page.set_viewport_size(SIZES[0][1])
    context.close()
    (screenshots / f"crawl-{role}.txt").write_text("\n".join(visited) + "\n")
    assert len(visited) > 5, visited
    mine = [p for p in problems if _known(p) is None]
    assert not mine, f"{len(mine)} problems:\n" + "\n".join(mine)
    others = sorted({_known(p) for p in problems} - {None})
    if others:
        pytest.xfail("fails only on pages other work owns: " + "; ".join(others))
