"""A board of 1,000 teams (issue 31, "big boards"), through web requests: the page
shows the first ``tails.TOP_ROWS`` ranked rows and the viewer's own rows wherever
they rank (added outside the cached fragment, never in another viewer's copy),
with a bounded number of queries, and ``?rows=all`` lists every team."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.urls import reverse

from evalhub.competitions.models import Team
from evalhub.competitions.services.boards import overall, overall_figure, tails
from evalhub.competitions.services.boards.own_rows import MARKER
from tests import demo_world, shared_world
from tests.competitions.big_board import seed_board
from tests.demo_world import (  # noqa: F401 - fixtures: the world's rows
    isolated_storage_row,
    organiser_row,
    outsider_row,
    participant_row,
    phase_row,
    task_row,
    test_set_row,
)

pytestmark = pytest.mark.django_db

TEAMS = 1000
YOU = MARKER.strip()
#: Queries of a signed-in page rendering its boards, and reading them from the
#: cache (bounded: none is per row or per team). The page holds one phase object
#: (its test sets' too), so the ranking choice (``boards/ranking.of``, kept on
#: it) is read once, and a board asks the Ladder's gate once: two reads of the
#: phase's ranking settings (``SETTINGS_READS``), none from the cache; before
#: rendering, one light query finds no page shell kept (``viewer_page``).
COLD, WARM = 17, 7
SETTINGS_READS = 2


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker, tmp_path_factory):  # noqa: ANN001, ANN201
    """The conftest's world and its board of 1,000 teams, seeded once for the
    module (``shared_world``): each test's changes (members added, a board of its
    own) are rolled back after it."""

    def build() -> dict[str, object]:
        c = demo_world.public_campaign()
        teams = seed_board(phase=c.phase, teams=TEAMS)
        return {
            **c.keys(),
            "participant": demo_world.participant_user(c.users).pk,
            "outsider": demo_world.outsider_user(c.users).pk,
            "big": [t.pk for t in teams],
        }

    folder = tmp_path_factory.mktemp("big-boards") / "storage"
    yield from shared_world.kept(django_db_blocker, folder, build)


@pytest.fixture
def big(world, isolated_storage):  # noqa: ANN001, ANN201
    """1,000 teams ranked on the public test set, "Seeded 0001" first."""
    from evalhub.competitions.models import Team

    by_pk = Team.objects.in_bulk(world.value["big"])
    return [by_pk[pk] for pk in world.value["big"]]


def _url(phase, query: str = "") -> str:  # noqa: ANN001
    url = reverse("competitions:leaderboard-detail", args=[phase.task.slug, phase.slug])
    return url + query


def _teams_shown(html: str) -> list[str]:
    """The team cells of the board's rows, in order."""
    return re.findall(r'<th scope="row" class="team">(Seeded \d{4})', html)


def _row(html: str, team_name: str) -> str:
    rows = re.findall(r"<tr[^>]*>.*?</tr>", html, flags=re.S)
    (row,) = [r for r in rows if f'class="team">{team_name}' in r]
    return row


def test_first_rows_then_own_rows_with_bounded_queries(
    client, phase, big, participant, outsider, django_assert_max_num_queries
):  # noqa: ANN001
    big[699].members.add(participant)  # ranked 700th
    big[899].members.add(outsider)  # ranked 900th
    client.force_login(participant)
    # The first request renders the fragment and the tail rows (the queries of a
    # board of any length), the next reads them from the cache.
    url = _url(phase)  # the phase's task read before the queries are counted
    for most in (COLD, WARM):
        with django_assert_max_num_queries(most) as captured:
            response = client.get(url)
        settings_reads = [q for q in captured if '"rankings_phaseranking"' in q["sql"]]
        assert len(settings_reads) == (SETTINGS_READS if most == COLD else 0)
        html = response.content.decode()
        shown = _teams_shown(html)
        first = [f"Seeded {i:04d}" for i in range(1, tails.TOP_ROWS + 1)]
        assert shown == [*first, "Seeded 0700"]
        assert YOU in _row(html, "Seeded 0700")
        assert html.count(YOU) == 1
        assert '<td class="rank">700</td>' in _row(html, "Seeded 0700")
        assert "Your team, further down the board:" in html
        assert f"Show all {TEAMS} rows" in html
        assert "<!--tail:" not in html and "<!--you:" not in html

    # Its run among the leaders' in figures: the compare page, from the link.
    (link,) = re.findall(r'<a href="([^"]+)">compare your run with the first 4', html)
    link = link.replace("&amp;", "&")
    ids = [int(i) for i in re.findall(r"runs=(\d+)", link)]
    own = big[699].submissions.get().pk
    assert len(ids) == 5 and ids[-1] == own
    compared = client.get(link)
    assert compared.status_code == 200
    assert "Seeded 0700" in compared.content.decode()

    # Another team reads the same cached fragment: its own row, not the first's.
    client.force_login(outsider)
    with django_assert_max_num_queries(WARM):
        html = client.get(_url(phase)).content.decode()
    assert _teams_shown(html)[-1] == "Seeded 0900"
    assert "Seeded 0700" not in html
    assert YOU in _row(html, "Seeded 0900") and html.count(YOU) == 1


def test_own_row_among_the_first_is_not_repeated(client, phase, big, participant):  # noqa: ANN001
    big[9].members.add(participant)
    client.force_login(participant)
    html = client.get(_url(phase)).content.decode()
    assert len(_teams_shown(html)) == tails.TOP_ROWS
    assert YOU in _row(html, "Seeded 0010")
    assert "further down the board" not in html


def test_the_public_sees_the_first_rows_and_no_placeholder(client, phase, big):  # noqa: ANN001
    for _ in range(2):  # rendered, then the whole page from the cache
        html = client.get(_url(phase)).content.decode()
        assert len(_teams_shown(html)) == tails.TOP_ROWS
        assert "<!--tail:" not in html and "further down" not in html
        more = f'href="{_url(phase, "?rows=all")}#testset-'
        assert more in html


def test_all_rows_lists_every_team(
    client, phase, big, participant, django_assert_max_num_queries
):  # noqa: ANN001
    expected = [f"Seeded {i:04d}" for i in range(1, TEAMS + 1)]
    html = client.get(_url(phase, "?rows=all")).content.decode()  # anonymous
    assert _teams_shown(html) == expected
    assert f"All {TEAMS} ranked rows" in html
    big[499].members.add(participant)
    client.force_login(participant)
    with django_assert_max_num_queries(WARM):
        html = client.get(_url(phase, "?rows=all")).content.decode()
    assert _teams_shown(html) == expected
    assert YOU in _row(html, "Seeded 0500") and html.count(YOU) == 1


def test_own_rows_lost_from_the_cache_point_to_the_full_board(
    client, phase, big, participant
):  # noqa: ANN001
    client.force_login(participant)
    assert "Seeded 0800" not in client.get(_url(phase)).content.decode()
    # The tail rows evicted while the fragment naming them is still cached, before
    # any request drew them.
    redis = cache._cache.get_client(write=True)  # noqa: SLF001
    evicted = list(redis.scan_iter(match=f"*:leaderboard:tail:*:{big[799].pk}"))
    assert evicted
    redis.delete(*evicted)
    big[799].members.add(participant)
    html = client.get(_url(phase)).content.decode()
    assert "Seeded 0800" not in html
    assert "Your team is further down" in html
    (anchor,) = re.findall(r'href="#(testset-\d+-more)"', html)
    assert f'id="{anchor}"' in html


def test_a_short_board_is_unchanged(client, phase, test_set, big, participant):  # noqa: ANN001
    # The module's big board gone (rolled back after the test): a board of its own.
    Team.objects.filter(pk__in=[t.pk for t in big]).delete()
    seed_board(phase=phase, teams=tails.TOP_ROWS)
    html = client.get(_url(phase)).content.decode()
    assert len(_teams_shown(html)) == tails.TOP_ROWS
    assert "ranked rows" not in html and "<!--tail:" not in html


def test_own_rows_drawn_once_are_served_again_without_the_cache(
    client, phase, big, participant
):  # noqa: ANN001
    """A tail's rows never change under its token: the rows drawn for a team are
    kept by the process and served again without reading the tail, until a new
    rendering of the board (a new token) names other rows."""
    big[799].members.add(participant)
    client.force_login(participant)
    first = client.get(_url(phase)).content.decode()
    assert "Seeded 0800" in first and YOU in _row(first, "Seeded 0800")
    redis = cache._cache.get_client(write=True)  # noqa: SLF001
    redis.delete(*redis.scan_iter(match=f"*:leaderboard:tail:*:{big[799].pk}"))
    again = client.get(_url(phase)).content.decode()
    token = re.compile(r"[A-Za-z0-9]{64}")  # the CSRF token, masked anew per request
    assert token.sub("", again) == token.sub("", first)


def test_the_overall_figure_draws_the_best_runs_only(client, phase, big):  # noqa: ANN001
    """The overall ranking's figure is drawn in the request that asks for it: it
    draws the ``FIGURE_BARS`` best runs, not a bar per run (1,000 here), and the
    page and the figure's title say so; the table lists every run."""
    from tasks.common import plotting

    args = [phase.task.slug, phase.slug]
    html = client.get(reverse("competitions:ranking-detail", args=args)).content
    html = html.decode()
    ranked = len(overall.overall(phase=phase, user=AnonymousUser()).rows)
    assert ranked >= TEAMS
    shown = f"The figure shows the best {overall_figure.FIGURE_BARS} of the {ranked} ranked runs"
    assert shown in html
    assert html.count('<td><a href="/runs/') == ranked
    with plotting.collecting_points() as points:
        url = reverse("competitions:ranking-plot", args=[*args, "svg"])
        assert client.get(url).status_code == 200
    bars = [name for _, _, name, _ in points["overall"]]
    assert len(bars) == overall_figure.FIGURE_BARS
    assert bars[-1].startswith("1. Seeded 0001")  # drawn bottom up: the best on top
    assert not any("Seeded 0041" in str(name) for name in bars)
