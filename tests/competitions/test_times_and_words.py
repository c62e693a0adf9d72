"""One time zone per page, always labelled, and the words of the public pages
(issue 30, items 5 and 7), through web requests."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote

import pytest
from django.urls import reverse

from evalhub.competitions.services import teams
from evalhub.competitions.services.data import demo
from evalhub.rankings import jobs
from tests.rankings.helpers import scored

pytestmark = pytest.mark.django_db

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
#: A moment as the server draws it, for the browser to redraw in its zone:
#: ``<time datetime="..." data-when="minutes">2026-11-26 16:54 UTC</time>``.
SHOWN = re.compile(
    r'<time datetime="([^"]+)" data-when="\w+">'
    r"(\d{4}-\d\d-\d\d \d\d:\d\d(?::\d\d)?) ([^<]+)</time>"
)


@pytest.fixture
def run(phase, test_set, participant, team, bucc_demo):  # noqa: ANN001, ANN201
    return scored(phase, participant, next(iter(bucc_demo.runs[0][2].values())), "m")


def _times(html: str) -> list[tuple[str, str, str]]:
    return SHOWN.findall(html)


def _footer_zone(html: str) -> str:
    (zone,) = re.findall(r"times shown in <span data-tz-shown>([^<]+)</span>", html)
    return zone


def _board_and_run_page(client, run) -> tuple[str, str]:  # noqa: ANN001
    phase = run.phase
    board = client.get(
        reverse("competitions:leaderboard-detail", args=[phase.task.slug, phase.slug])
    ).content.decode()
    page = client.get(reverse("competitions:run-detail", args=[run.pk])).content
    return board, page.decode()


@pytest.mark.parametrize("signed_in", [False, True])
def test_a_first_visit_and_the_next_page_show_one_zone(
    client, run, participant, signed_in
):  # noqa: ANN001
    """Issue 43 item 9: the first page (before the browser's script has set the
    ``tz`` cookie) and the next one (after) draw every moment the same way: in
    UTC, labelled so, for the browser to redraw in its zone; never UTC on one
    page and CET on the next."""
    if signed_in:
        client.force_login(participant)
    phase = run.phase
    board_url = reverse(
        "competitions:leaderboard-detail", args=[phase.task.slug, phase.slug]
    )
    first = client.get(board_url).content.decode()
    client.cookies["tz"] = quote("Europe/Paris", safe="")  # as static/evalhub.js does
    page = client.get(reverse("competitions:run-detail", args=[run.pk])).content
    page = page.decode()
    again = client.get(board_url).content.decode()
    assert _footer_zone(first) == _footer_zone(page) == _footer_zone(again) == "UTC"
    on_board = [t for t in _times(first) if t[0] == run.created_at.isoformat()]
    on_page = [t for t in _times(page) if t[0] == run.created_at.isoformat()]
    assert on_board and on_page
    assert on_board[0][1:] == on_page[0][1:]
    assert _times(first) == _times(again)
    assert {t[2] for t in _times(first) + _times(page)} == {"UTC"}
    # No moment is drawn outside the markup the browser redraws.
    for html in (first, page):
        assert html.count("<time ") == len(_times(html))


def test_the_board_page_is_one_for_every_zone(client, run):  # noqa: ANN001
    """The anonymous board page is shared by viewers of every zone (the cache
    key holds no zone): the same bytes with or without the cookie."""
    phase = run.phase
    url = reverse("competitions:leaderboard-detail", args=[phase.task.slug, phase.slug])
    utc = client.get(url).content
    client.cookies["tz"] = quote("America/Sao_Paulo", safe="")
    assert client.get(url).content == utc


def test_no_template_shows_a_time_without_its_zone() -> None:
    """Times go through the ``when`` filter (UTC, labelled, redrawn by the browser); a
    ``|date`` with hours is allowed only in UTC, labelled so on the spot."""
    offending = []
    for path in TEMPLATES.rglob("*.html"):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            for match in re.finditer(r'\|date:["\'][^"\']*[HGhg][^"\']*["\']', line):
                before = line[: match.start()]
                if before.endswith("|utc") and "UTC" in line[match.end() :]:
                    continue
                offending.append(f"{path.relative_to(TEMPLATES)}:{number}")
    assert not offending, offending


def test_signature_in_details_band_explained_and_no_double_punctuation(
    client, phase, test_set, run, participant, outsider, other_team, bucc_demo
):  # noqa: ANN001
    other = next(iter(bucc_demo.runs[-1][2].values()))
    scored(phase, outsider, other, "other", figures=False)  # the board only
    jobs.refresh_statistics(test_set.pk)
    html = client.get(
        reverse("competitions:leaderboard-detail", args=[phase.task.slug, phase.slug])
    ).content.decode()
    details = re.search(
        r'<details class="signature"><summary>How these numbers were computed'
        r"</summary>(.*?)</details>",
        html,
        flags=re.S,
    )
    assert details is not None and "<code>bilingual_term_alignment:" in details[1]
    # The signature is nowhere else on the page.
    assert html.count("<code>bilingual_term_alignment:") == 1
    assert (
        '<p class="band-note">Band: runs in one band are not significantly different'
        in html
    )
    assert ").)" not in re.sub(r"<[^>]+>", "", html)
    assert "measure). The best run" in html


def test_probe_tables_spell_out_their_tags() -> None:
    from tasks.mt_lexicon_probe.scoring import TABLE_TITLES

    for title in TABLE_TITLES.values():
        assert "(not u" not in title and "not tagged u" in title


def test_home_cards_show_test_set_names_not_slugs(
    client, isolated_storage, django_user_model
) -> None:  # noqa: ANN001
    tasks = demo.seed_demo(with_runs=False)
    for task in tasks:  # one scored run each: the card names its leader
        team_name, method, files = task.type.demo(seed=0).runs[0]
        user = django_user_model.objects.create_user(f"u{task.pk}")
        teams.register(task=task, user=user, new_team_name=f"{team_name} {task.pk}")
        run = next(iter(files.values()))
        scored(task.phases.get(), user, run, method, figures=False)  # not shown
    html = client.get(reverse("competitions:task-list")).content.decode()
    for task in tasks:
        for test_set in task.phases.get().test_sets.all():
            assert test_set.name != test_set.slug
            assert f"({test_set.slug})" not in html
    leaders = re.findall(r'<span class="meta">on ([^<]+)</span>', html)
    assert leaders and all(" " in name for name in leaders), leaders
