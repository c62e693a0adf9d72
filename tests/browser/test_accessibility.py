"""Accessibility and phone audit of the main pages in a real browser (Debian's
Chromium driven by Playwright): axe-core (WCAG 2.x A/AA rules, colour contrast
included) finds no serious or critical violation on any of them, for the public, a
participant and an organiser; on a phone-sized screen no page scrolls sideways (wide
tables scroll inside their own box). Screenshots of every page at both sizes go to
$EVALHUB_SCREENSHOTS (default: the test's tmp folder): look at them."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.urls import reverse

from evalhub.competitions.services import teams
from evalhub.rankings import jobs
from tests.rankings.helpers import scored

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
AXE_OPTIONS = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
    "resultTypes": ["violations"],
}


def _compare_url(phase, run, others) -> str:  # noqa: ANN001
    query = "&".join(f"runs={r.pk}" for r in [run, *others])
    return reverse("competitions:runs-compare", args=[phase.task.slug, phase.slug]) + (
        "?" + query
    )


def _pages(task, phase, test_set, run, others) -> dict[str, list[tuple[str, str]]]:  # noqa: ANN001
    """role -> [(name, path)]"""
    public = [
        ("task-list", reverse("competitions:task-list")),
        ("task", reverse("competitions:task-detail", args=[task.slug])),
        (
            "leaderboard",
            reverse("competitions:leaderboard-detail", args=[task.slug, phase.slug]),
        ),
        (
            "ranking",
            reverse("competitions:ranking-detail", args=[task.slug, phase.slug]),
        ),
        ("run", reverse("competitions:run-detail", args=[run.pk])),
        ("significance", f"/rankings/testsets/{test_set.pk}/significance/"),
        ("team", reverse("teams:team-detail", args=[run.team_id])),
        ("compare", _compare_url(phase, run, others)),
        ("login", reverse("account_login")),
        ("signup", reverse("account_signup")),
    ]
    participant = [
        ("register", reverse("competitions:task-register", args=[task.slug])),
        ("submit", reverse("competitions:run-submit", args=[task.slug, phase.slug])),
        ("run-own", reverse("competitions:run-detail", args=[run.pk])),
        ("tokens", reverse("api:token-list")),
        ("teams", reverse("teams:team-list")),
        ("notifications", reverse("notifications:notification-list")),
    ]
    organiser = [
        ("dashboard", reverse("competitions:task-dashboard", args=[task.slug])),
        ("rescoring", reverse("competitions:task-rescoring", args=[task.slug])),
        ("bundle", reverse("competitions:bundle-import")),
        (
            "baseline",
            reverse("competitions:baseline-create", args=[task.slug, phase.slug]),
        ),
        (
            "run-items",
            reverse("competitions:run-item-detail", args=[run.pk, test_set.pk]),
        ),
        ("console-testsets", reverse("console:testsets", args=[task.slug])),
        ("console-testset-add", reverse("console:testset-create", args=[task.slug])),
        (
            "console-files",
            reverse("console:testset-files", args=[task.slug, test_set.pk]),
        ),
        (
            "console-visibility",
            reverse("console:testset-visibility", args=[task.slug, test_set.pk]),
        ),
        ("console-gold-release", reverse("console:gold-release", args=[task.slug])),
        # Every page of the console's navigation, and the staff's page.
        ("console-new-task", reverse("console:task-create")),
        ("console-settings", reverse("console:task-settings", args=[task.slug])),
        ("console-phases", reverse("console:phases", args=[task.slug])),
        ("console-phase-add", reverse("console:phase-create", args=[task.slug])),
        (
            "console-phase",
            reverse("console:phase-edit", args=[task.slug, phase.slug]),
        ),
        (
            "console-tracks",
            reverse("console:track-list", args=[task.slug, phase.slug]),
        ),
        ("console-ranking", reverse("console:ranking", args=[task.slug, phase.slug])),
        ("console-factsheet", reverse("factsheets:question-list", args=[task.slug])),
        ("console-organisers", reverse("console:organisers", args=[task.slug])),
        ("console-announcements", reverse("console:announcements", args=[task.slug])),
        ("console-messages", reverse("console:messages", args=[task.slug])),
        ("console-message-new", reverse("console:message-create", args=[task.slug])),
        ("console-runs", reverse("console:runs", args=[task.slug])),
        ("console-after-campaign", reverse("console:after-campaign", args=[task.slug])),
        (
            "console-preview-participant",
            reverse("console:preview-participant", args=[task.slug]),
        ),
        ("console-preview-public", reverse("console:preview-public", args=[task.slug])),
        ("staff-creators", reverse("competitions:creator-list")),
    ]
    return {"anonymous": public, "participant": participant, "organiser": organiser}


def _serious(results) -> list[str]:  # noqa: ANN001
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — "
        + "; ".join(n["target"][0] for n in v["nodes"][:5])
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def test_main_pages_pass_axe_and_fit_a_phone(
    live_server,
    task,
    phase,
    test_set,
    participant,
    team,
    bucc_demo,
    django_user_model,
    screenshots,
    browser,
):  # noqa: ANN001
    run = scored(phase, participant, bucc_demo.runs[0][2]["test"], "dictionary")
    others = []
    for i, (_, method, files) in enumerate(bucc_demo.runs[1:], start=1):
        user = django_user_model.objects.create_user(f"rival{i}")
        teams.register(task=task, user=user, new_team_name=f"Rival {i}")
        others.append(scored(phase, user, files["test"], method))
    jobs.refresh_statistics(test_set.pk)

    axe = Axe()
    problems: list[str] = []
    credentials = {
        "participant": ("alice", "pw-alice-1"),
        "organiser": ("org", "pw-organiser-1"),
    }
    for role, pages in _pages(task, phase, test_set, run, others).items():
        context = browser.new_context(viewport=DESKTOP, timezone_id="Europe/Paris")
        page = context.new_page()
        page.set_default_timeout(30_000)
        if role in credentials:
            username, password = credentials[role]
            page.goto(live_server.url + reverse("account_login"))
            page.get_by_label("Username").fill(username)
            page.get_by_label("Password").fill(password)
            page.get_by_role("button", name="Log in").click()
            page.get_by_text("Signed in as").wait_for()
        for name, path in pages:
            for size_name, size in (("desktop", DESKTOP), ("phone", PHONE)):
                page.set_viewport_size(size)
                response = page.goto(live_server.url + path)
                assert response is not None and response.status == 200, (role, path)
                page.screenshot(
                    path=str(screenshots / f"{role}-{name}-{size_name}.png"),
                    full_page=True,
                )
                where = f"{role} {path} ({size_name})"
                problems += [
                    f"{where}: {p}"
                    for p in _serious(axe.run(page, options=AXE_OPTIONS))
                ]
                overflow = page.evaluate(
                    "document.documentElement.scrollWidth - window.innerWidth"
                )
                if overflow > 1:
                    problems.append(
                        f"{where}: the page scrolls sideways by {overflow}px"
                    )
        context.close()
    assert not problems, "\n".join(problems)
