"""A leaderboard figure's data as CSV: the points the figure draws, with the
figure's own leak rules (a hidden run in it, an organiser-only figure: 404 to
whoever may not see the figure) and user text neutralised for spreadsheets."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from evalhub.competitions.models import Submission, TaskArtefact
from evalhub.competitions.services.boards import analyses
from tests.rankings.helpers import scored


@pytest.fixture
def figure(phase, test_set, participant, team, bucc_demo):  # noqa: ANN001, ANN201
    team.name = "=cmd|' /C calc'!A0"
    team.save(update_fields=["name"])
    run = scored(phase, participant, bucc_demo.runs[0][2]["test"], "dictionary")
    analyses.refresh(test_set_id=test_set.pk)
    artefact = TaskArtefact.objects.get(
        test_set=test_set, key=f"{analyses.COMPARE_PREFIX}ap"
    )
    url = reverse("competitions:testset-plot-data", args=[test_set.pk, artefact.key])
    return run, artefact, url


@pytest.mark.django_db
def test_the_csv_holds_the_points_the_figure_draws(client, figure):  # noqa: ANN001
    run, artefact, url = figure
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["panel", "series", "x", "y"]
    evaluation = run.evaluations.get(test_set=artefact.test_set)
    curve = next(c for c in evaluation.curves if c["key"] == "ap")
    assert len(rows) - 1 == len(curve["x"])
    assert {r[1] for r in rows[1:]} == {f"'{analyses.run_label(run)}"}
    assert [float(r[3]) for r in rows[1:]] == list(curve["series"][0][1])
    assert float(rows[-1][2]) == curve["x"][-1]


@pytest.mark.django_db
def test_a_hidden_run_in_the_figure_keeps_its_csv_from_the_public(
    client, figure, organiser
):  # noqa: ANN001
    run, artefact, url = figure
    Submission.objects.filter(pk=run.pk).update(hidden=True)
    assert client.get(url).status_code == 404
    # The public figures never draw more than the public board, for organisers
    # too: until it is redrawn without the run, nobody gets it.
    client.force_login(organiser)
    assert client.get(url).status_code == 404
    analyses.refresh(test_set_id=artefact.test_set_id)
    assert analyses.run_label(run) not in client.get(url).content.decode()


@pytest.mark.django_db
def test_an_organiser_only_figure_has_an_organiser_only_csv(
    client, figure, organiser, participant
):  # noqa: ANN001
    _, artefact, url = figure
    TaskArtefact.objects.filter(pk=artefact.pk).update(organiser_only=True)
    assert client.get(url).status_code == 404
    client.force_login(participant)
    assert client.get(url).status_code == 404
    client.force_login(organiser)
    assert client.get(url).status_code == 200


@pytest.mark.django_db
def test_the_figure_area_links_each_figure_to_its_data_and_pdf(client, figure):  # noqa: ANN001
    _, artefact, url = figure
    phase = artefact.test_set.phase
    html = client.get(
        reverse("competitions:leaderboard-detail", args=[phase.task.slug, phase.slug])
    ).content.decode()
    pdf = reverse("api:figure-export", args=[artefact.test_set.pk, artefact.key, "pdf"])
    assert f'<a href="{url}">data (CSV)</a>' in html
    assert f'<a href="{pdf}">PDF</a>' in html
    # The log-x twin is grouped with its linear figure for the selector.
    assert (
        'data-figure-group="Precision, recall, F1: precision" data-scale="log"' in html
    )


@pytest.mark.django_db
def test_a_figure_is_served_without_reading_every_figures_data(client, figure):  # noqa: ANN001
    """A figure's points are thousands of numbers: serving one figure reads none,
    the board that shows them all reads only its analysis' data, a figure's CSV
    its own points only."""
    _, artefact, csv_url = figure
    phase = artefact.test_set.phase
    ts = artefact.test_set
    svg = reverse("competitions:testset-plot", args=[ts.pk, artefact.key, "svg"])
    board = reverse(
        "competitions:leaderboard-detail", args=[phase.task.slug, phase.slug]
    )
    analysis = TaskArtefact.objects.get(test_set=ts, key="analysis")
    assert TaskArtefact.objects.filter(test_set=ts).count() > 2

    def data_read(url: str) -> set[int]:
        """The artefacts whose data the request loaded."""
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200
        read = set()
        for query in queries.captured_queries:
            sql = query["sql"]
            if re.search(r'"public_data"(, "| FROM)', sql):
                rows = re.search(r'taskartefact"\."id" = (\d+)', sql)
                read.add(int(rows[1]) if rows else -1)  # -1: every artefact
        return read

    assert data_read(svg) == set()
    assert data_read(board) == {analysis.pk}
    assert data_read(csv_url) == {artefact.pk}
