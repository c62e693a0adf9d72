"""Figures in a real browser (Debian's Chromium via Playwright), at 1280 and at
390 px: the leaderboard of every demo task and of each track of the two-track demo,
a run page and a comparison of two runs of every demo task (its overlaid figures
drawn as the worker does), an overall ranking:

- every figure fills the column on a desktop, and a phone gets the figure drawn for
  its column (``<picture>``; one holding a table, wider, scrolls in its box);
- no figure text is under 11 px as displayed: each text of the SVG the browser
  chose, put in the page at the size the image is shown, measured from its glyphs'
  transform on screen (``getScreenCTM``), and no text runs out of its figure;
- tick labels are numbers (a category's name on a bar chart's axis), no mathtext
  anywhere, on every figure (the log-x ones included);
- a track's figures draw only its runs (their SVG legends and data CSV).

With ``EVALHUB_SCREENSHOTS`` set, the figure area of each leaderboard, and each run
page and comparison whole, are saved there as PNG at both widths."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from evalhub.competitions.models import Submission
from evalhub.competitions.services.boards import analyses, compare_figures
from evalhub.competitions.services.data import demo
from evalhub.competitions.services.runs import scoring
from evalhub.rankings import jobs
from tests import run_figures
from tests.browser.demo_world import (  # noqa: F401 - fixtures
    demo_tasks,
    module_world,
    transactional_db,
)
from tests.browsers import screenshot
from tests.figure_text import problems, texts

#: The demo site is built once for the module, or put back from the test
#: process's snapshot (tests/browser/demo_world.py): no ``django_db`` marker.
pytestmark = [pytest.mark.e2e]

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
MIN_PX = 11

#: For each figure <img> as shown: its size, the source the browser chose, and
#: the font size on screen (px) of each text and whether it lies inside the image.
MEASURE = """async img => {
  const svgText = await (await fetch(img.currentSrc)).text();
  const holder = document.createElement('div');
  holder.style.cssText = 'position:absolute;left:0;top:0;width:' + img.clientWidth + 'px';
  holder.innerHTML = svgText.replace(/^[\\s\\S]*?(<svg)/, '$1');
  document.body.appendChild(holder);
  const svg = holder.querySelector('svg');
  svg.setAttribute('width', '100%'); svg.removeAttribute('height');
  const box = svg.getBoundingClientRect();
  const out = [];
  for (const g of svg.querySelectorAll('g[id^="text_"]')) {
    const comment = [...g.childNodes].find(n => n.nodeType === 8);
    const glyphs = [...g.querySelectorAll('g[transform]')]
      .filter(el => el.querySelector(':scope > use'));
    if (!glyphs.length) continue;
    const ctm = glyphs[0].getScreenCTM();
    const r = g.getBoundingClientRect();
    out.push({
      text: comment ? comment.textContent.trim() : '',
      px: Math.hypot(ctm.a, ctm.b) * 100,
      inside: r.left >= box.left - 1 && r.right <= box.right + 1
        && r.top >= box.top - 1 && r.bottom <= box.bottom + 1,
    });
  }
  holder.remove();
  return {src: img.currentSrc, width: img.clientWidth,
          column: img.closest('.plots').clientWidth, texts: out};
}"""


@pytest.fixture(scope="module")
def tracked_world(demo_tasks):  # noqa: ANN001, ANN201, F811
    """Every demo task with its demo runs scored (tests/browser/demo_world.py), and
    the two-track demo; the statistics and figures of each test set drawn. Returns
    (path, track runs, other tracks' runs) per leaderboard, and the two runs of
    each demo task that its comparison draws."""
    tasks, _ = demo_tasks
    tracked = demo.seed_tracks_demo()
    for sub in Submission.objects.filter(phase__task=tracked):
        scoring.score_submission(submission_id=sub.pk)
    run_figures.draw_pending()  # the figure jobs the scoring jobs send
    for test_set in tracked.phases.get().test_sets.all():
        jobs.refresh_statistics(test_set.pk)
        analyses.refresh(test_set_id=test_set.pk)
    out, compared = [], []
    for task in [*tasks, tracked]:
        phase = task.phases.get()
        path = reverse("competitions:leaderboard-detail", args=[task.slug, phase.slug])
        if task != tracked:
            first, second = Submission.objects.filter(phase=phase).order_by("pk")[:2]
            compared += [
                (test_set.pk, [first.pk, second.pk])
                for test_set in phase.test_sets.all()
            ]
            compare = reverse("competitions:runs-compare", args=[task.slug, phase.slug])
            out += [
                (path, set(), set()),
                (reverse("competitions:run-detail", args=[first.pk]), set(), set()),
                (f"{compare}?runs={first.pk}&runs={second.pk}", set(), set()),
            ]
            continue
        ranking = reverse("competitions:ranking-detail", args=[task.slug, phase.slug])
        out.append((f"{ranking}?track=open", set(), set()))
        runs = Submission.objects.filter(phase=phase).select_related("track")
        for slug in ("closed", "open"):
            mine = {s.pk for s in runs if s.track.slug == slug}
            others = {s.pk for s in runs if s.track.slug != slug}
            out.append((f"{path}?track={slug}", mine, others))
    return out, compared


@pytest.fixture
def boards(tracked_world):  # noqa: ANN001, ANN201
    """``tracked_world``'s leaderboards, with each comparison's figures drawn (the
    worker's drawing) in the test's own cache namespace, where they are kept."""
    out, compared = tracked_world
    for test_set_id, run_ids in compared:
        compare_figures.draw(test_set_id=test_set_id, run_ids=run_ids)
    return out


def _figures(page, base: str, path: str) -> list[dict]:  # noqa: ANN001
    page.goto(base + path)
    imgs = page.locator(".plots img")
    found = []
    for i in range(imgs.count()):
        img = imgs.nth(i)
        img.scroll_into_view_if_needed()
        page.wait_for_function(
            "i => i.complete && i.naturalWidth > 0", arg=img.element_handle()
        )
        found.append(img.evaluate(MEASURE))
    return found


def test_figures_read_well_at_1280_and_390(live_server, boards, browser, screenshots):  # noqa: ANN001
    problems_found: list[str] = []
    # Without JavaScript every figure of the area is shown, one below the other,
    # at the width the one chosen in the list takes with it.
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.set_default_timeout(30_000)
    for path, mine, others in boards:
        for name, size in (("1280", DESKTOP), ("390", PHONE)):
            page.set_viewport_size(size)
            figures = _figures(page, live_server.url, path)
            assert figures, (path, name)
            column = page.evaluate("() => document.querySelector('.plots').clientWidth")
            for fig in figures:
                where = f"{path} at {name}: {fig['src']}"
                # A phone's figure holding a table may be wider: it scrolls in its box.
                if fig["width"] < column - 2 or (
                    name == "1280" and fig["width"] > column + 2
                ):
                    problems_found.append(f"{where} is {fig['width']} px of {column}")
                narrow = ".narrow.svg" in fig["src"]
                if narrow != (name == "390"):
                    problems_found.append(f"{where}: the wrong drawing")
                for text in fig["texts"]:
                    if text["px"] < MIN_PX - 0.05:
                        problems_found.append(
                            f"{where}: {text['text']!r} is {text['px']:.1f} px"
                        )
                    if not text["inside"]:
                        problems_found.append(f"{where}: {text['text']!r} cut off")
                body = page.request.get(fig["src"]).body()
                problems_found += [f"{where}: {p}" for p in problems(body, ())]
                drawn = " ".join(t for t, _, _ in texts(body))
                problems_found += [
                    f"{where} draws run {pk} of another track"
                    for pk in others
                    if f"(run #{pk})" in drawn
                ]
            if others:
                problems_found += _csv_runs(page, live_server.url, mine, others)
            if name == "390":
                overflow = page.evaluate(
                    "document.documentElement.scrollWidth - window.innerWidth"
                )
                if overflow > 1:
                    problems_found.append(f"{path} scrolls sideways by {overflow}px")
            if "/leaderboard/" in path:
                slug = path.strip("/").split("/")[1] + path.partition("?track=")[2]
                screenshot(
                    page.locator(".figure-area").first,
                    screenshots / f"figures-{slug}-{name}.png",
                )
            else:  # a run page, a comparison: the page's figures
                kind = "compare" if "/compare/" in path else "run"
                slug = f"{kind}-{path.strip('/').split('/')[1]}"
                screenshot(
                    page, screenshots / f"figures-{slug}-{name}.png", full_page=True
                )
    context.close()
    assert not problems_found, "\n".join(problems_found)


def _csv_runs(page, base: str, mine: set[int], others: set[int]) -> list[str]:  # noqa: ANN001
    """The data CSV of every figure of a track's board: its runs, none of
    another track's."""
    found = []
    links = page.locator(".figure-area a", has_text="data (CSV)")
    for i in range(links.count()):
        url = links.nth(i).get_attribute("href")
        text = page.request.get(base + url).text()
        rows = list(csv.DictReader(io.StringIO(text)))
        if "run" in (rows[0] if rows else {}):  # the interval chart's data
            runs = {int(r["run"]) for r in rows}
            if not runs or not runs <= mine:
                found.append(f"{url}: runs {sorted(runs)}, track's {sorted(mine)}")
        for pk in others:
            if f"(run #{pk})" in text:
                found.append(f"{url} lists run {pk} of another track")
    return found
