"""Browser tests: real Chromium (Playwright) against the live server, the real
database and broker. An annotator (not an organiser) logs in, tags translations with
the keyboard and watches the score change (a real Celery worker process re-scores the
runs), then undoes; an organiser builds a probe set from the real Wiktionary lexicon
on the probe-set page and saves it into a new test set."""

from __future__ import annotations

import pytest
from django.db import connection

from tests.browsers import screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

TIMEOUT_MS = 90_000


@pytest.fixture
def browser_page(page):  # noqa: ANN001, ANN201
    """The shared Chromium page (tests/conftest.py), taller, with a longer timeout."""
    page.set_viewport_size({"width": 1200, "height": 1400})
    page.set_default_timeout(TIMEOUT_MS)
    return page


def _ranked_primary(test_set, submission_id: int) -> float | None:  # noqa: ANN001
    """The run's primary score on the (cached) leaderboard. Called inside
    Playwright's event loop, where Django opens a separate connection: close it, or
    the test database cannot be dropped at the end."""
    from evalhub.competitions.services.boards import leaderboard

    try:
        board = leaderboard.board(test_set=test_set)
        return next(r.primary for r in board.rows if r.submission_id == submission_id)
    finally:
        connection.close()


def _log_in(page, live_server, username: str, password: str) -> None:  # noqa: ANN001
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=login]", username)
    page.fill("input[name=password]", password)
    page.press("input[name=password]", "Enter")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


def test_annotator_tags_with_the_keyboard_and_sees_the_score_change(
    without_plots,
    mt_runs,
    mt_test_set,
    annotator,
    worker,
    live_server,
    screenshots,
    browser_page,
):
    from playwright.sync_api import expect

    page = browser_page
    segmenting = mt_runs["segmenting"]
    _log_in(page, live_server, "annie", "pw-annie-1")
    # The header's Annotate link leads an annotator to their task's test sets.
    page.get_by_role("link", name="Annotate").click()
    page.get_by_role("link", name="Probe test task · Evaluation · Probes").click()
    page.wait_for_url(f"**/annotate/testsets/{mt_test_set.pk}/")

    page.goto(
        f"{live_server.url}/annotate/testsets/{mt_test_set.pk}/"
        "?freq_class=low&untagged=1"
    )
    score = page.locator(f'tr[data-run="{segmenting.pk}"] td.score')
    # Segmenting system, low class: only verbs judged (digitalisieren, proposed c).
    expect(score).to_have_text("1.0000")
    # Cached from here on:
    assert _ranked_primary(mt_test_set, segmenting.pk) == pytest.approx(1.0)
    expect(page.locator("#probe-title")).to_contain_text("This is weaponless.")
    active = page.locator(".choice.active .translation")
    expect(active).to_have_text("Dies ist waffenlos.")  # proposed c: confirm it
    page.keyboard.press("8")
    expect(active).to_have_text("Dies ist Waffe-weniger.")
    page.keyboard.press("2")  # w: wrong translation
    # The probe is done: the page moves on to the next untagged low-frequency probe.
    expect(page.locator("#probe-title")).to_contain_text("This is thievish.")
    assert "probe=adj-low-002" in page.url
    # A worker re-scored the runs: adjectives 0/1, verbs 1/1 -> mean 0.5.
    expect(score).to_have_text("0.5000", timeout=TIMEOUT_MS)
    expect(page.locator(".progress")).to_contain_text("2 items tagged by annotators")
    screenshot(page, screenshots / "annotations-tagged.png", full_page=True)
    # The worker invalidated the cached leaderboard: the row is re-ranked.
    assert _ranked_primary(mt_test_set, segmenting.pk) == pytest.approx(0.5)

    page.keyboard.press("z")  # undo the w
    expect(page.locator("#probe-title")).to_contain_text("This is weaponless.")
    expect(page.locator(".history tr.retracted")).to_have_count(1)
    expect(score).to_have_text("1.0000", timeout=TIMEOUT_MS)
    # Moving around with the keyboard: next/previous translation and probe.
    expect(active).to_have_text("Dies ist Waffe-weniger.")
    page.keyboard.press("k")
    expect(active).to_have_text("Dies ist waffenlos.")
    page.keyboard.press("n")
    expect(page.locator("#probe-title")).to_contain_text("This is thievish.")
    page.keyboard.press("p")
    expect(page.locator("#probe-title")).to_contain_text("This is weaponless.")
    assert worker.poll() is None, "the worker died"


def test_organiser_builds_a_probe_set_on_the_page_from_the_real_lexicon(
    mt_task, organiser, live_server, browser_page, tmp_path, screenshots
):
    from django.utils import timezone
    from playwright.sync_api import expect

    from evalhub.competitions.models import Phase, TestSetFile
    from tests.paths import shared_data

    now = timezone.now()
    Phase.objects.create(
        task=mt_task,
        slug="probing",
        name="Probing",
        opens_at=now,
        closes_at=now + timezone.timedelta(days=7),
    )
    root = shared_data("mt_lexical_coverage", "wiktionary_bli_de_en")
    page = browser_page
    _log_in(page, live_server, "org", "pw-organiser-1")
    page.goto(f"{live_server.url}/tasks/{mt_task.slug}/dashboard/")
    page.get_by_role("link", name="Build a probe set").click()
    expect(page.get_by_label("Words per cell")).to_have_value("100")
    expect(page.get_by_label("Low band centre (Zipf)")).to_have_value("1.75")

    # A broken lexicon: the error names the file and the line.
    broken = tmp_path / "lexicon.tsv"
    broken.write_text("Haus\thouse\tnoun\nbald\tsoon\tadverb\n", encoding="utf-8")
    page.get_by_label("Lexicon").set_input_files(str(broken))
    page.get_by_role("button", name="Build and preview").click()
    expect(page.get_by_role("alert")).to_contain_text(
        "lexicon.tsv, line 2: unknown pos 'adverb'"
    )

    page.get_by_label("Lexicon").set_input_files([])
    for label, name in (
        ("Adjectives", "Adjective"),
        ("Nouns", "Noun"),
        ("Verbs", "Verb"),
    ):
        page.get_by_label(label).set_input_files(str(root / f"de-en.train.{name}"))
    page.get_by_label("Dictionary").set_input_files(str(root / "de-en.all"))
    page.get_by_label("Seed").fill("7")
    page.get_by_role("button", name="Build and preview").click()
    # The build runs in the request (1.5-3 s): the page says so meanwhile.
    expect(page.locator(".upload-status")).to_contain_text("building the probe set")
    expect(page.locator("#preview-title")).to_have_text(
        "Preview: 900 probes", timeout=TIMEOUT_MS
    )
    expect(page.locator("td.cell")).to_have_count(9)
    expect(page.locator("td.cell .selected")).to_have_text(["100"] * 9)
    expect(page.locator('td[data-cell="verb-low"]')).to_contain_text("available")
    screenshot(page, screenshots / "probe-set-preview.png", full_page=True)

    page.get_by_label("Save into").select_option(label="Probing · a new test set")
    page.get_by_label("New test set name").fill("Wiktionary probes")
    page.get_by_role("button", name="Save into the test set").click()
    expect(page.locator(".messages")).to_contain_text(
        "Saved the probe set into Probing · Wiktionary probes"
    )
    try:
        stored = dict(
            TestSetFile.objects.filter(
                test_set__phase__task=mt_task, test_set__name="Wiktionary probes"
            ).values_list("role", "private")
        )
    finally:
        connection.close()
    assert stored == {"probes": False, "references": True}
