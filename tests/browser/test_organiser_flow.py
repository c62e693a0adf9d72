"""An organiser in a real browser (Debian's Chromium driven by Playwright) against the
live server and a real Celery worker: create a task from a bundle (a broken bundle
first: its problems name the file and line), replace the hidden gold in the console
(the worker rescores every run on it at once) and compare old and new scores, reveal
the private test set, release the gold; no request goes to ``/admin/``.
An anonymous visitor's view is checked before and after each step. Screenshots go to
$EVALHUB_SCREENSHOTS (when it is set)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from evalhub.competitions.models import SharedTask, Submission
from evalhub.competitions.services import teams
from tests import workers
from tests.browsers import log_in, screenshot
from tests.rankings.helpers import submitted
from tests.zips import zip_bytes

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _manifest() -> str:
    opens = (timezone.now() - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    closes = (timezone.now() + timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"""\
slug: terms-2027
title: Bilingual terms 2027
description: Align *English* and German terms.
task_type: bilingual_term_alignment
state: published
phases:
  - slug: evaluation
    name: Evaluation
    opens: {opens}
    closes: {closes}
    test_sets:
      - slug: dev
        name: Development
        visibility: public
        files:
          source_terms: data/src.txt
          target_terms: data/tgt.txt
          gold: data/gold.tsv
      - slug: test
        name: Test
        visibility: private
        files:
          source_terms: data/src.txt
          target_terms: data/tgt.txt
          gold: data/gold.tsv
"""


def test_bundle_gold_rescore_reveal_release(
    live_server,
    worker,
    organiser,
    participant,
    bucc_demo,
    tmp_path,
    screenshots,
    browser,
    page,
):  # noqa: ANN001
    base = live_server.url
    demo = bucc_demo.test_sets[0]
    files = {
        "data/src.txt": demo.inputs["source_terms"],
        "data/tgt.txt": demo.inputs["target_terms"],
        "data/gold.tsv": demo.gold["gold"],
    }
    visited: list[str] = []
    page.on("request", lambda request: visited.append(request.url))
    log_in(page, base, "org", "pw-organiser-1")

    # 1. A broken bundle: every problem names its file and line; nothing is created.
    broken = tmp_path / "broken.zip"
    broken.write_bytes(
        zip_bytes(
            {
                "task.yaml": _manifest().replace("visibility: private", "visibility: secret").encode(),
                **files,
                "data/gold.tsv": b"skin pain\thautschmerzen\nno tab here\n",
            }
        )
    )  # fmt: skip
    page.goto(f"{base}/new/bundle/")
    page.get_by_label("Task bundle (.zip)").set_input_files(str(broken))
    page.get_by_role("button", name="Create the task").click()
    alert = page.get_by_role("alert")
    alert.wait_for()
    assert re.search(r"task\.yaml, line \d+", alert.inner_text())
    assert not SharedTask.objects.filter(slug="terms-2027").exists()
    screenshot(page, screenshots / "bundle_problems.png", full_page=True)

    # 2. The good bundle creates the whole task.
    bundle = tmp_path / "bundle.zip"
    bundle.write_bytes(zip_bytes({"task.yaml": _manifest().encode(), **files}))
    page.get_by_label("Task bundle (.zip)").set_input_files(str(bundle))
    page.get_by_role("button", name="Create the task").click()
    page.wait_for_url(f"{base}/tasks/terms-2027/")
    page.get_by_role("heading", name="Bilingual terms 2027").wait_for()
    task = SharedTask.objects.get(slug="terms-2027")
    phase = task.phases.get()
    dev, test = phase.test_sets.order_by("order")
    assert (dev.visibility, test.visibility) == ("public", "private")

    # A participant's run, scored on both test sets.
    teams.register(task=task, user=participant, new_team_name="Alpha")
    data = bucc_demo.runs[0][2]["test"]
    run = workers.scored_by(worker, submitted(phase, participant, data, "dictionary"))
    old_ap = run.scores.get(test_set=test, metric="ap").value
    old_text = f"{old_ap:.4f}"

    anonymous = browser.new_context().new_page()
    board = f"{base}/tasks/terms-2027/evaluation/leaderboard/"
    anonymous.goto(board)
    assert "private until the organisers reveal them" in anonymous.content()
    assert old_text not in anonymous.locator(f"#testset-{test.pk}").inner_text()

    # 3. Replace the private test set's gold in the console: preview, then confirm.
    new_gold = tmp_path / "gold-v1.tsv"
    new_gold.write_bytes(b"\n".join(demo.gold["gold"].splitlines()[40:]) + b"\n")
    page.goto(f"{base}/tasks/terms-2027/dashboard/testsets/{test.pk}/files/")
    page.get_by_label("Gold").set_input_files(str(new_gold))
    page.get_by_role("button", name="Check and preview").click()
    page.get_by_role("button", name=re.compile("^Store the gold")).click()
    page.get_by_text(re.compile("being rescored on the new gold")).wait_for()
    version = test.gold_version
    test.refresh_from_db()
    assert test.gold_version == version + 1

    # 4. Replacing gold queued the run for rescoring at once (the Ladder and the
    # intervals need every run on the new gold); the rescoring page then shows the
    # old and new scores side by side.
    def rescored() -> bool:
        assert worker.poll() is None, "the worker died"
        return Submission.objects.get(pk=run.pk).status == "scored" and (
            run.evaluations.get(test_set=test).gold_version == version + 1
        )

    _wait(rescored, page, "the worker to rescore the run")
    page.goto(f"{base}/tasks/terms-2027/dashboard/")
    page.get_by_role("link", name="Rescoring (old and new scores)").click()
    section = page.locator(f"section[aria-labelledby='ts-{test.pk}']")
    text = section.inner_text()
    new_ap = run.scores.get(test_set=test, metric="ap").value
    assert "every run is up to date" in text
    assert old_text in text and f"{new_ap:.4f}" in text and old_text != f"{new_ap:.4f}"
    screenshot(page, screenshots / "rescoring.png", full_page=True)

    # 5. Reveal the private test set: the public sees its scores.
    page.goto(f"{base}/tasks/terms-2027/dashboard/testsets/{test.pk}/reveal/")
    page.get_by_role("button", name="Reveal the scores").click()
    page.get_by_text("The scores of Test are revealed.").wait_for()
    anonymous.goto(board)
    assert f"{new_ap:.4f}" in anonymous.locator(f"#testset-{test.pk}").inner_text()
    screenshot(anonymous, screenshots / "leaderboard_revealed.png", full_page=True)

    # 6. Release the gold: the per-item outcomes become public.
    items = f"{base}/runs/{run.pk}/items/{test.pk}/"
    assert anonymous.goto(items).status == 404
    page.goto(f"{base}/tasks/terms-2027/dashboard/testsets/")
    page.get_by_role("link", name="Release the gold…").click()
    page.get_by_role("button", name="Release the gold").click()
    page.get_by_text("The gold is released.").wait_for()
    assert anonymous.goto(items).status == 200
    anonymous.get_by_text("The gold of this task has been released.").wait_for()
    assert visited and not [url for url in visited if "/admin/" in url]


def _wait(predicate, page, what: str, seconds: float = 180) -> None:  # noqa: ANN001
    """Poll ``predicate`` while the browser idles (the worker is another process)."""
    deadline = timezone.now() + timedelta(seconds=seconds)
    while timezone.now() < deadline:
        if predicate():
            return
        page.wait_for_timeout(500)
    raise AssertionError(f"timed out after {seconds} s waiting for {what}")
