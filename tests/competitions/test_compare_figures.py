"""The compare page's figures, through web requests and the worker's job: one
overlaid figure per kind with every compared run in it (not one figure per run),
drawn by a worker and served from the cache; a score the viewer may not see (the
Ladder's withheld run, a private test set) is never drawn into what they get."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.test import Client
from django.urls import reverse

from evalhub.competitions import jobs, queue
from evalhub.competitions.services import teams
from evalhub.competitions.services.boards import analyses, compare_figures
from evalhub.rankings import jobs as rankings_jobs
from evalhub.rankings.models import PhaseRanking
from tests.rankings.helpers import scored

pytestmark = pytest.mark.django_db


@pytest.fixture
def asked(monkeypatch):  # noqa: ANN001, ANN201
    """The drawings the pages ask a worker for (the broker's messages)."""
    sent: list[tuple[int, list[int]]] = []

    class Job:
        @staticmethod
        def delay(test_set_id: int, run_ids: list[int]) -> None:
            sent.append((test_set_id, list(run_ids)))

    real = queue.job
    monkeypatch.setattr(
        queue,
        "job",
        lambda name: Job if name == compare_figures.DRAW_JOB else real(name),
    )
    return sent


@pytest.fixture
def runs(task, phase, bucc_demo, participant, team, outsider):  # noqa: ANN001, ANN201
    files = {method: f["test"] for _, method, f in bucc_demo.runs}
    subs = [
        scored(phase, participant, files["roots only"], "first"),
        scored(phase, participant, files["dictionary"], "second"),
    ]
    teams.register(task=task, user=outsider, new_team_name="Other")
    subs.append(scored(phase, outsider, files["random"], "other"))
    return subs


def _url(task, phase, subs) -> str:  # noqa: ANN001
    url = reverse("competitions:runs-compare", args=[task.slug, phase.slug])
    return url + "?" + "&".join(f"runs={s.pk}" for s in subs)


def _draw(asked) -> None:  # noqa: ANN001
    """What a worker does with the messages: the job itself."""
    while asked:
        test_set_id, run_ids = asked.pop(0)
        assert jobs.draw_compare_figures(test_set_id, run_ids) > 0


def _figures(page: str) -> list[str]:
    """The SVG address of every figure the page shows."""
    return [
        src.replace("&amp;", "&")
        for src in re.findall(r'<img src="([^"]*/compare/figures/[^"]*)"', page)
    ]


def _series(client, svg_url: str) -> set[str]:  # noqa: ANN001
    response = client.get(svg_url.replace(".svg?", ".csv?"))
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    return {row["series"] for row in rows}


def test_three_runs_make_one_overlaid_figure_per_kind(
    client, task, phase, test_set, runs, asked
):  # noqa: ANN001
    url = _url(task, phase, runs)
    page = client.get(url).content.decode()
    assert "being drawn" in page and not _figures(page)
    assert asked == [(test_set.pk, [r.pk for r in runs])]
    assert client.get(url).status_code == 200
    assert len(asked) == 1  # asked once, not at every view
    _draw(asked)

    page = client.get(url).content.decode()
    assert "being drawn" not in page
    assert "/plots/" not in page  # no per-run figure stacked any more
    figures = _figures(page)
    kinds = {re.search(r"/figures/\d+/([\w-]+)\.svg", f)[1] for f in figures}  # type: ignore[index]
    assert figures and len(kinds) == len(figures)  # one figure per kind
    labels = {analyses.run_label(r) for r in runs}
    for figure in figures:
        svg = client.get(figure)
        assert svg.status_code == 200
        assert svg["Content-Type"] == "image/svg+xml"
        assert svg.content.count(b'id="line2d_') >= 3
        assert _series(client, figure) == labels  # every run, in the same axes
        narrow = client.get(figure.replace(".svg?", ".narrow.svg?"))
        assert narrow.status_code == 200 and narrow.content.startswith(b"<?xml")
    assert asked == []  # served from the cache


def test_a_score_the_viewer_may_not_see_is_not_drawn_for_them(
    client, task, phase, test_set, private_test_set, runs, asked, outsider, organiser
):  # noqa: ANN001
    """The Ladder withholds the first run's score on the public test set, and the
    private test set is not revealed: the outsider's figures draw the two runs they
    may see, the organisers' all three, and the organisers' figures are not served
    to the outsider."""
    PhaseRanking.objects.create(phase=phase, ladder=True)
    for ts in (test_set, private_test_set):
        assert rankings_jobs.refresh_statistics(ts.pk) == "refreshed"
    first, *shown = runs
    url = _url(task, phase, runs)
    client.force_login(outsider)
    client.get(url)
    assert asked == [(test_set.pk, [r.pk for r in shown])]  # nothing of the private
    _draw(asked)
    page = client.get(url).content.decode()
    outsider_figures = _figures(page)
    assert outsider_figures
    assert all(f"/figures/{test_set.pk}/" in f for f in outsider_figures)
    for figure in outsider_figures:
        series = _series(client, figure)
        assert series == {analyses.run_label(r) for r in shown}
        assert analyses.run_label(first) not in series

    organisers = Client()
    organisers.force_login(organiser)
    organisers.get(url)
    assert sorted(asked) == sorted(
        [(ts.pk, [r.pk for r in runs]) for ts in (test_set, private_test_set)]
    )
    _draw(asked)
    page = organisers.get(url).content.decode()
    organiser_figures = _figures(page)
    private = [f for f in organiser_figures if f"/figures/{private_test_set.pk}/" in f]
    assert private and len(private) < len(organiser_figures)
    for figure in organiser_figures:
        assert _series(organisers, figure) == {analyses.run_label(r) for r in runs}
    # The outsider asking for the organisers' figures gets nothing of them.
    for figure in organiser_figures:
        for form in (".svg?", ".csv?", ".narrow.svg?"):
            answer = client.get(figure.replace(".svg?", form))
            if f"/figures/{test_set.pk}/" in figure and answer.status_code == 200:
                assert analyses.run_label(first).encode() not in answer.content
            else:
                assert answer.status_code == 404, figure
    assert asked == []
