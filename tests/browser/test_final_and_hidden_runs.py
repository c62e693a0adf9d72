"""A participant in a real browser (Debian's Chromium driven by Playwright) picks a
final run and hides another from their team's runs list; the public leaderboard
(another browser context, not logged in) follows: the hidden run is gone, and the
private test set ranks the chosen final run instead of the best public one."""

from __future__ import annotations

import pytest

from tests import workers
from tests.browsers import screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def two_runs(worker, submit_run, bucc_demo, test_set, private_test_set):  # noqa: ANN001, ANN201
    """Alpha's strong run and its weak run, scored by the test's worker (it takes
    the scoring job each submission sends; the test sets' scores are revealed so
    that the public sees both boards)."""
    private_test_set.revealed = True
    private_test_set.save()
    runs = {}
    for name, index in (("strong", 0), ("weak", 1)):
        data = next(iter(bucc_demo.runs[index][2].values()))
        runs[name] = submit_run(data, method=f"{name} method")
    for sub in runs.values():
        workers.scored_by(worker, sub)
    return runs


def _board_rows(page, url: str, test_set_name: str) -> list[str]:  # noqa: ANN001
    page.goto(url)
    section = page.locator("section.board").filter(
        has=page.get_by_role("heading", name=test_set_name, exact=True)
    )
    return [
        row.inner_text() for row in section.locator("table.sortable > tbody > tr").all()
    ]


def test_participant_picks_a_final_run_and_hides_another(
    live_server,
    worker,
    task,
    phase,
    test_set,
    private_test_set,
    two_runs,
    screenshots,
    browser,
):
    shots = screenshots
    strong, weak = two_runs["strong"], two_runs["weak"]
    board_url = f"{live_server.url}/tasks/{task.slug}/{phase.slug}/leaderboard/"
    public = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    public.set_default_timeout(30_000)
    # Before: the strong run on both boards (no final run chosen: best public run).
    for name in ("Public", "Private"):
        rows = _board_rows(public, board_url, name)
        assert len(rows) == 1 and "strong method" in rows[0], (name, rows)

    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    page.set_default_timeout(30_000)
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("pw-alice-1")
    page.get_by_role("button", name="Log in").click()
    page.goto(f"{live_server.url}/tasks/{task.slug}/")
    page.get_by_text("Runs are public by default").wait_for()
    # Keyboard only: focus the button and press Enter.
    page.get_by_role("button", name=f"Choose as final run {weak.pk}").focus()
    page.keyboard.press("Enter")
    page.get_by_text(f"Run {weak.pk} is now one of your final runs").wait_for()
    page.get_by_role("button", name=f"Hide run {strong.pk}").click()
    page.get_by_text(f"Run {strong.pk} is hidden").wait_for()
    # A second final run is refused, saying why.
    page.get_by_role("button", name=f"Choose as final run {strong.pk}").click()
    page.get_by_text("at most 1 final run").wait_for()
    screenshot(page, shots / "team_runs.png", full_page=True)
    # Compare both runs from the team's runs list (ticked with the keyboard).
    for run in (strong, weak):
        page.get_by_label(f"Compare run {run.pk}").focus()
        page.keyboard.press("Space")
    page.get_by_role("button", name="Compare the ticked runs").click()
    page.wait_for_url("**/compare/?runs=*")
    table = page.locator("table.compare-table").first
    assert table.locator("td.best").count() >= 1
    assert "strong method" in table.inner_text() and "weak method" in table.inner_text()
    screenshot(page, shots / "compare.png", full_page=True)
    # The team still sees its hidden run's page.
    page.goto(f"{live_server.url}/runs/{strong.pk}/")
    page.get_by_text("Seen by the team and the organisers only").wait_for()

    # After: the public sees the weak run only, on both boards.
    for name in ("Public", "Private"):
        rows = _board_rows(public, board_url, name)
        assert len(rows) == 1 and "weak method" in rows[0], (name, rows)
    assert "strong method" not in public.content()
    screenshot(public, shots / "public_board_after.png", full_page=True)
    response = public.goto(f"{live_server.url}/runs/{strong.pk}/")
    assert response is not None and response.status == 404
