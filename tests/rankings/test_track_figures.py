"""Every figure of a track's board is drawn for that track, from its runs only: the
interval chart, the comparison figures and the analysis' figures, their SVG, phone
SVG, PNG, PDF and data CSV, all at addresses that name the track; the board of every
track draws them all. A figure is served only while every run it draws is on its
board. Team names that mathtext would read are drawn as written, tick labels are
numbers (the platform's own figures: interval chart, comparisons)."""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from evalhub.competitions.services.boards import analyses
from evalhub.competitions.services.runs import hiding
from tests.demo_world import (  # noqa: F401 - fixtures: the world's rows
    isolated_storage_row,
    organiser_row,
    phase_row,
    task_row,
    test_set_row,
)
from tests.figure_text import problems, texts
from tests.rankings.track_world import (  # noqa: F401 - fixtures: the world
    CLOSED,
    OPEN,
    track_runs_rows,
    track_world,
)

pytestmark = pytest.mark.django_db

FIGURE_URL = re.compile(r'(?:src|srcset|href)="([^"]*(?:/plots/|/intervals\.)[^"]*)"')


def _figure_urls(client, phase, track: str | None) -> list[str]:  # noqa: ANN001
    url = reverse("competitions:leaderboard-detail", args=[phase.task.slug, phase.slug])
    page = client.get(url + (f"?track={track}" if track else ""))
    assert page.status_code == 200
    return sorted({html.unescape(u) for u in FIGURE_URL.findall(page.content.decode())})


def _drawn_text(client, url: str) -> str:  # noqa: ANN001
    response = client.get(url)
    assert response.status_code == 200, url
    body = b"".join(response) if response.streaming else response.content
    if ".svg" in url:
        found = problems(body)
        assert not found, (url, found)
        return "\n".join(text for text, _, _ in texts(body))
    if url.split("?")[0].endswith(".csv"):
        return body.decode()
    return ""


@pytest.mark.parametrize(
    ("track", "mine", "others"),
    [("closed", CLOSED, OPEN), ("open", OPEN, CLOSED), (None, CLOSED + OPEN, ())],
)
def test_a_track_board_draws_its_own_runs_only(
    client, phase, track_runs, track, mine, others
):  # noqa: ANN001
    urls = _figure_urls(client, phase, track)
    kinds = {
        "intervals": [u for u in urls if "/intervals." in u],
        "comparison": [u for u in urls if "/plots/compare-" in u],
        "analysis": [u for u in urls if "/plots/analysis-" in u],
    }
    assert all(kinds.values()), kinds
    assert any("narrow.svg" in u for u in urls) and any(".pdf" in u for u in urls)
    drawn = ""
    for url in urls:
        if track is not None:
            assert url.endswith(f"?track={track}"), url
        drawn += _drawn_text(client, url)
    for method in others:
        assert method not in drawn, (track, method)
    for method in mine:
        assert method in drawn, (track, method)


def test_a_track_figure_is_served_only_while_its_runs_are_on_its_board(
    client, phase, test_set, track_runs
):  # noqa: ANN001
    runs, users = track_runs
    figure = reverse(
        "competitions:testset-plot", args=[test_set.pk, "compare-ap", "svg"]
    )
    assert client.get(figure + "?track=open").status_code == 200
    hiding.set_hidden(submission=runs[OPEN[0]], user=users[1], hidden=True)
    assert client.get(figure + "?track=open").status_code == 404
    assert client.get(figure).status_code == 404  # the all-tracks board drew it too
    assert client.get(figure + "?track=closed").status_code == 200
    analyses.refresh(test_set_id=test_set.pk)
    redrawn = client.get(figure + "?track=open")
    assert redrawn.status_code == 200
    drawn = "\n".join(t for t, _, _ in texts(b"".join(redrawn)))
    assert OPEN[1] in drawn and OPEN[0] not in drawn
    assert client.get(figure + "?track=nowhere").status_code == 404


def test_figures_drawn_before_tracks_had_their_own_are_drawn_again(
    client, phase, test_set, track_runs, monkeypatch
):  # noqa: ANN001
    """A board of a track whose figures and chart were drawn for every track
    together only (before this existed) asks the worker for its own."""
    from evalhub.competitions.models import TaskArtefact
    from evalhub.competitions.services.boards import refreshes
    from evalhub.rankings.models import TrackChart

    asked: list[tuple[str, int]] = []
    monkeypatch.setattr(
        refreshes,
        "request",
        lambda *, kind, test_set_id: asked.append((kind, test_set_id)) or True,
    )
    TaskArtefact.objects.filter(test_set=test_set, track__isnull=False).delete()
    TrackChart.objects.all().delete()
    url = reverse("competitions:leaderboard-detail", args=[phase.task.slug, phase.slug])
    page = client.get(url + "?track=open").content.decode()
    assert "being redrawn" in page
    assert (refreshes.ANALYSES, test_set.pk) in asked
    assert (refreshes.STATISTICS, test_set.pk) in asked
