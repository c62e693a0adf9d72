"""The console's *Runs* page in a real browser (Chromium driven by Playwright)
against the live server, at desktop (1280 px) and phone (390 px) width: the
organiser filters, ticks a run, hides it through the confirmation page and reads
what happened; axe-core finds no serious WCAG A/AA violation, nothing scrolls
sideways, and user text stays plain text."""

from __future__ import annotations

import pytest

from evalhub.competitions import jobs
from evalhub.competitions.models import Phase, Submission
from tests.browsers import log_in, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

METHOD = "<b>bold</b> & sons"


@pytest.fixture
def runs(phase, test_set, submit_run, demo_run, outsider, other_team):  # noqa: ANN001, ANN201
    Phase.objects.filter(pk=phase.pk).update(daily_limit=100, total_limit=100)
    phase.refresh_from_db()
    made = [submit_run(demo_run, method=METHOD)]
    made += [submit_run(demo_run, user=outsider, method=f"m{i}") for i in range(3)]
    for run in made[:2]:
        jobs.score_submission(run.pk)
    return made


def _log_in(page, base: str) -> None:  # noqa: ANN001
    log_in(page, base, "org", "pw-organiser-1")


def test_runs_page_hide_a_run_at_desktop_and_phone_width(
    live_server, organiser, task, runs, screenshots, browser
):
    from axe_playwright_python.sync_playwright import Axe

    from tests.page_audit import AXE_OPTIONS, DESKTOP, PHONE
    from tests.page_audit import serious as _serious

    base, axe, problems = live_server.url, Axe(), []
    ours = runs[0]
    for size in (DESKTOP, PHONE):
        width = size["width"]
        context = browser.new_context(timezone_id="Europe/Paris", viewport=size)
        page = context.new_page()
        page.set_default_timeout(30_000)
        _log_in(page, base)
        page.goto(f"{base}/tasks/{task.slug}/dashboard/")
        page.get_by_role(
            "link", name="Every run: filter, rescore, hide, download"
        ).click()
        page.get_by_role("heading", name=f"{task.title}: runs").wait_for()
        assert page.locator("table.console-runs tbody tr").count() == 4
        assert METHOD in page.locator("table.console-runs").inner_text()  # plain text
        screenshot(page, screenshots / f"console-runs-{width}.png", full_page=True)
        problems += [f"runs @ {width}: {p}" for p in _serious(axe.run(page, options=AXE_OPTIONS))]  # fmt: skip
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")  # fmt: skip
        if overflow > 0:
            problems.append(f"runs @ {width}: scrolls sideways by {overflow}px")
        if width == PHONE["width"]:
            context.close()
            continue
        # Filter by the team, tick its scored run, hide it.
        page.get_by_label("Team").select_option(label="Alpha")
        page.get_by_role("button", name="Filter").click()
        page.wait_for_url("**team=*")
        assert page.locator("table.console-runs tbody tr").count() == 1
        page.get_by_label(f"Tick run {ours.pk}").check()
        page.get_by_label("Action").select_option(label="Hide from the public")
        page.get_by_role("button", name="Continue").click()
        page.get_by_text("1 run will be hidden").wait_for()
        screenshot(
            page, screenshots / f"console-runs-confirm-{width}.png", full_page=True
        )
        problems += [f"confirm @ {width}: {p}" for p in _serious(axe.run(page, options=AXE_OPTIONS))]  # fmt: skip
        assert not Submission.objects.get(pk=ours.pk).hidden
        page.get_by_role("button", name="Hide from the public: 1 run").click()
        page.get_by_text("1 run hidden.").wait_for()
        assert "team=" in page.url  # back to the same filters
        assert "hidden" in page.locator("table.console-runs tbody tr").inner_text()
        screenshot(page, screenshots / f"console-runs-done-{width}.png", full_page=True)
        assert Submission.objects.get(pk=ours.pk).hidden
        context.close()
    assert not problems, "\n".join(problems)
