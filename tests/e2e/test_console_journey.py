"""The organiser console in a real browser (Chromium driven by Playwright) against the
live server and a real Celery worker: a new organiser sets up a term-extraction task
from scratch in the console (its type's settings form, a phase entered in the
organiser's time zone), uploads the real ACTER gold (a broken gold file first: its
problems name the file and line), previews what the task type understood, publishes
from the settings page; a participant submits; the
organiser replaces the gold (the worker rescores), reveals the private test set,
releases the gold and exports the LaTeX table. The public's view is checked at each
step. Screenshots go to $EVALHUB_SCREENSHOTS (when it is set).

tests/console/test_setup_browser.py goes further on the task and phase pages (live
Markdown preview, checklist, previews as a participant and as the public)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from evalhub.competitions.models import Phase, SharedTask, Submission, TestSet
from evalhub.competitions.services import roles
from tests.browsers import log_in, screenshot
from tests.page_audit import AXE_OPTIONS
from tests.page_audit import serious as _serious
from tests.paths import shared_data

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LISTS = ("term_extraction", "acter", "en", "htfl", "annotated", "annotations",
         "unique_annotation_lists")  # fmt: skip


def _audit(page) -> None:  # noqa: ANN001
    """No serious axe-core violation (as the main pages' audit)."""
    from axe_playwright_python.sync_playwright import Axe

    assert _serious(Axe().run(page, options=AXE_OPTIONS)) == []


def _wait(predicate, page, what: str, seconds: float = 180) -> None:  # noqa: ANN001
    """Poll ``predicate`` while the browser idles (the worker is another process)."""
    deadline = timezone.now() + timedelta(seconds=seconds)
    while timezone.now() < deadline:
        if predicate():
            return
        page.wait_for_timeout(500)
    raise AssertionError(f"timed out after {seconds} s waiting for {what}")


def test_console_journey(
    live_server, worker, participant, django_user_model, tmp_path, screenshots,
    browser, page,
):  # fmt: skip
    base = live_server.url
    django_user_model.objects.create_user(
        "neworg", password="pw-neworg-1", is_staff=True
    )
    terms = shared_data(*LISTS, "htfl_en_terms.tsv").read_bytes()
    with_nes = shared_data(*LISTS, "htfl_en_terms_nes.tsv").read_bytes()
    log_in(page, base, "neworg", "pw-neworg-1")

    # 0. The task from scratch: its type, the type's settings as a form, a draft.
    page.goto(f"{base}/new/task/")
    page.get_by_label("Term extraction (TermoMeter)").check()
    page.get_by_label("Title").fill("Heart failure terms 2027")
    page.get_by_label("Slug").fill("acter-2027")
    page.get_by_role("textbox", name="Description").fill("Extract the *terms*.")
    page.get_by_label("Threshold τ").fill("0.4")
    page.get_by_label("Threshold τ").blur()
    page.get_by_role("button", name="Create the task").click()
    page.get_by_role("heading", name="Before the task can open").wait_for()
    task = SharedTask.objects.get(slug="acter-2027")
    assert task.state == "draft" and task.parsed_settings().tau == 0.4
    assert roles.is_organiser(django_user_model.objects.get(username="neworg"), task)

    # A phase open since yesterday for 30 days, entered in the organiser's zone.
    page.locator(".checklist").get_by_role("link", name="Add a phase").click()
    zone = ZoneInfo(page.get_by_label("Time zone").input_value())
    now = timezone.now().astimezone(zone)
    opens, closes = now - timedelta(days=1), now + timedelta(days=30)
    page.get_by_label("Name").fill("Evaluation")
    page.get_by_label("Slug").fill("evaluation")
    page.get_by_label("Opens at").fill(opens.strftime("%Y-%m-%dT%H:%M"))
    page.get_by_label("Closes at").fill(closes.strftime("%Y-%m-%dT%H:%M"))
    page.get_by_role("button", name="Save the phase").click()
    page.get_by_role("link", name="Edit Evaluation").wait_for()
    phase = Phase.objects.get(task=task)
    assert phase.opens_at == datetime(*opens.timetuple()[:5], tzinfo=zone)
    assert phase.is_open()
    testsets = f"{base}/tasks/{task.slug}/dashboard/testsets/"

    # 1. A private test set, from the console.
    page.goto(testsets)
    page.get_by_role("link", name="Add a test set").click()
    page.get_by_label("Name").fill("Test")
    page.get_by_label("Visibility").select_option("private")
    page.get_by_role("button", name="Add the test set").click()
    page.get_by_role("heading", name="Files of Evaluation / Test").wait_for()
    test = phase.test_sets.get()
    assert (test.slug, test.visibility) == ("test", "private")

    # 2. A broken gold file: every problem by file and line, nothing stored.
    lines = terms.decode().splitlines(keepends=True)
    broken = lines[:4] + ["heart\tSpecific_Term\textra column\n"] + lines[4:10]
    broken += ["\tCommon_Term\n"] + lines[10:]
    (tmp_path / "acter-broken.tsv").write_text("".join(broken))
    page.get_by_label("Gold term list").set_input_files(
        str(tmp_path / "acter-broken.tsv")
    )
    page.get_by_role("button", name="Check and preview").click()
    alert = page.get_by_role("alert")
    alert.wait_for()
    text = alert.inner_text()
    assert "Nothing was stored: 2 problems" in text
    assert "acter-broken.tsv, line 5: expected 'term' or 'term<TAB>label'" in text
    assert "acter-broken.tsv, line 12: empty term" in text
    assert not test.files.exists()
    screenshot(page, screenshots / "console_gold_problems.png", full_page=True)
    _audit(page)

    # 3. The fixed file: a preview of what was understood, then stored.
    (tmp_path / "htfl_en_terms.tsv").write_bytes(terms)
    page.get_by_label("Gold term list").set_input_files(
        str(tmp_path / "htfl_en_terms.tsv")
    )
    page.get_by_role("button", name="Check and preview").click()
    page.get_by_role("heading", name="What the task type understood").wait_for()
    counts = page.locator("table.gold-counts")
    assert (
        counts.get_by_role("row", name=re.compile("gold terms"))
        .inner_text()
        .split()[-1]
        == "2359"
    )
    assert "gold lines 954, 959 are one term" in page.locator(".warnings").inner_text()
    assert page.locator("ul.examples li").count() == 5
    screenshot(page, screenshots / "console_gold_preview.png", full_page=True)
    _audit(page)
    page.get_by_role("button", name="Store the file").click()
    page.get_by_text("Stored 1 file.").wait_for()
    assert test.files.get().original_name == "htfl_en_terms.tsv"
    screenshot(page, screenshots / "console_testsets.png", full_page=True)

    # 4. Published from the settings page; a participant registers and submits in
    # the browser; the worker scores the run.
    page.goto(f"{base}/tasks/{task.slug}/dashboard/settings/")
    page.get_by_label("State").select_option("published")
    page.get_by_role("button", name="Save the settings").click()
    page.get_by_text("The task's settings are saved.").wait_for()
    task.refresh_from_db()
    assert task.state == "published" and task.parsed_settings().tau == 0.4
    run_file = tmp_path / "run.txt"
    run_file.write_text(
        "".join(line.split("\t")[0] + "\n" for line in lines[::2])
        + "not a term at all\n"
    )
    other = browser.new_context().new_page()
    log_in(other, base, "alice", "pw-alice-1")
    other.goto(f"{base}/tasks/{task.slug}/")
    other.get_by_role("link", name="Register a team").click()
    other.get_by_label("…or a new team name").fill("Cardio")
    other.get_by_role("button", name="Register").click()
    other.get_by_text("is registered").wait_for()
    other.get_by_role("link", name="Submit a run").click()
    other.get_by_label("Method name").fill("every other term")
    other.get_by_label("Run file").set_input_files(str(run_file))
    other.get_by_role("button", name="Submit").click()
    other.wait_for_url("**/runs/*/")
    other.get_by_text("Status: Scored").wait_for(timeout=180_000)
    run = Submission.objects.get(method_name="every other term")
    old_tf = run.scores.get(test_set=test, metric="term_f1").value
    anonymous = browser.new_context().new_page()
    board = f"{base}/tasks/{task.slug}/{phase.slug}/leaderboard/"
    anonymous.goto(board)
    assert f"{old_tf:.4f}" not in anonymous.content()

    # 5. Replace the gold: counts before and after, the run to rescore; confirmed,
    # the worker rescores it on the new gold.
    (tmp_path / "htfl_en_terms_nes.tsv").write_bytes(with_nes)
    page.goto(testsets)
    page.get_by_role("link", name="Upload or replace files").click()
    page.get_by_label("Gold term list").set_input_files(
        str(tmp_path / "htfl_en_terms_nes.tsv")
    )
    page.get_by_role("button", name="Check and preview").click()
    row = page.locator("table.gold-counts").get_by_role(
        "row", name=re.compile("gold terms")
    )
    before, after = row.inner_text().split()[-2:]
    assert before == "2359" and int(after) > 2359
    page.get_by_role("heading", name="Runs that will be rescored (1)").wait_for()
    assert "Cardio · every other term" in page.content()
    screenshot(page, screenshots / "console_gold_replace.png", full_page=True)
    page.get_by_role("button", name="Store the gold and rescore 1 run").click()
    page.get_by_text("1 run(s) are being rescored on the new gold.").wait_for()

    def rescored() -> bool:
        assert worker.poll() is None, "the worker died"
        return Submission.objects.get(pk=run.pk).status == "scored" and (
            run.evaluations.get(test_set=test).gold_version
            == TestSet.objects.get(pk=test.pk).gold_version
        )

    _wait(rescored, page, "the worker to rescore the run")
    new_tf = run.scores.get(test_set=test, metric="term_f1").value
    assert f"{new_tf:.4f}" != f"{old_tf:.4f}"

    # 6. Reveal: the page says who will see what; then the public sees the score.
    page.goto(testsets)
    page.get_by_role("link", name="Reveal its scores…").click()
    assert (
        "Everyone, signed in or not, will see the scores of 1 run of 1 team on “Test”"
        in page.locator("ul.disclosure").inner_text()
    )
    _audit(page)
    page.get_by_role("button", name="Reveal the scores").click()
    page.get_by_text("The scores of Test are revealed.").wait_for()
    anonymous.goto(board)
    assert f"{new_tf:.4f}" in anonymous.locator(f"#testset-{test.pk}").inner_text()

    # 7. Release the gold: anyone may download it then.
    gold_url = f"{base}/testsets/{test.pk}/files/gold/"
    assert anonymous.request.get(gold_url).status == 404
    page.get_by_role("link", name="Release the gold…").click()
    assert (
        "download the gold files of 1 test set"
        in page.locator("ul.disclosure").inner_text()
    )
    page.get_by_role("button", name="Release the gold").click()
    page.get_by_text("The gold is released.").wait_for()
    download = anonymous.request.get(gold_url)
    assert download.status == 200 and download.body() == with_nes

    # 8. The LaTeX table for the overview paper, from the task page.
    page.goto(f"{base}/tasks/{task.slug}/")
    tex_url = page.get_by_role("link", name="LaTeX", exact=True).get_attribute("href")
    table = page.request.get(f"{base}{tex_url}").text()
    assert "\\begin{tabular}" in table and "Cardio" in table
    assert f"{new_tf:.4f}" in table
