# ruff: noqa: F811  (the stats fixture is imported, then requested by name)
"""The interval chart and the overall chart have their data beside them: CSV (full
precision, user text never a spreadsheet formula) and a vector PDF, with the
charts' own visibility rules."""

from __future__ import annotations

import csv
import io

import pytest
from django.contrib.auth.models import AnonymousUser
from django.urls import reverse

from evalhub.competitions.models import Team
from evalhub.competitions.services.boards import overall
from evalhub.rankings.models import PhaseRanking
from tests.rankings.ladder_stats import stats  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db


def _rows(response) -> list[dict[str, str]]:  # noqa: ANN001
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def test_the_interval_chart_data_is_its_points_at_full_precision(
    client, stats, test_set
):  # noqa: ANN001, F811
    Team.objects.filter(name="Other").update(name="=SUM(1)")
    rows = _rows(
        client.get(reverse("rankings:chart-detail", args=[test_set.pk, "csv"]))
    )
    data = test_set.statistics.data
    drawn = [pk for pk in data["matrix"]["runs"] if str(pk) in data["intervals"]]
    assert [int(r["run"]) for r in rows] == drawn and len(rows) >= 2
    for row in rows:
        iv = data["intervals"][row["run"]]
        assert (float(row["value"]), float(row["low"]), float(row["high"])) == (
            iv["value"], iv["low"], iv["high"],
        )  # fmt: skip
        assert float(row["low"]) <= float(row["value"]) <= float(row["high"])
    assert "'=SUM(1)" in {r["team"] for r in rows}
    pdf = client.get(reverse("rankings:chart-detail", args=[test_set.pk, "pdf"]))
    assert pdf.status_code == 200 and b"".join(pdf).startswith(b"%PDF")


def test_the_overall_chart_data_is_the_ranking_with_each_test_set(
    client, stats, task, phase
):  # noqa: ANN001, F811
    url = reverse("competitions:ranking-plot", args=[task.slug, phase.slug, "csv"])
    rows = _rows(client.get(url))
    board = overall.overall(phase=phase, user=AnonymousUser())
    assert board.rows and [int(r["run"]) for r in rows] == [
        r.submission_id for r in board.rows
    ]
    for row, expected in zip(rows, board.rows, strict=True):
        assert float(row["mean"]) == expected.mean
        assert tuple(float(row[ts.name]) for ts in board.test_sets) == expected.values
    page = client.get(
        reverse("competitions:ranking-detail", args=[task.slug, phase.slug])
    )
    assert url in page.content.decode()
    pdf = client.get(url.replace(".csv", ".pdf"))
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")


def test_the_leaderboard_links_the_interval_chart_data(
    client, stats, task, phase, test_set
):  # noqa: ANN001, F811
    page = client.get(
        reverse("competitions:leaderboard-detail", args=[task.slug, phase.slug])
    ).content.decode()
    assert reverse("rankings:chart-detail", args=[test_set.pk, "csv"]) in page
    assert reverse("rankings:chart-detail", args=[test_set.pk, "pdf"]) in page


def test_the_chart_draws_the_boards_first_rows_and_its_data_every_run(
    client, stats, test_set, monkeypatch
):  # noqa: ANN001, F811
    """A board's chart draws the runs shown before "Show all" (its first
    ``TOP_ROWS``, here 1 of the 2 teams' rows); its data CSV every run of the
    board."""
    from evalhub.competitions.services.boards import tails
    from evalhub.rankings import jobs

    PhaseRanking.objects.filter(phase=test_set.phase).update(ladder=False)
    monkeypatch.setattr(tails, "TOP_ROWS", 1)
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    test_set.statistics.refresh_from_db()
    data = test_set.statistics.data
    every = [pk for pk in data["matrix"]["runs"] if str(pk) in data["intervals"]]
    assert len(every) == 2  # a row per team
    svg = client.get(reverse("rankings:chart-detail", args=[test_set.pk, "svg"]))
    text = b"".join(svg.streaming_content).decode()
    assert "first 1 runs (all: data CSV)" in text
    methods = {s.pk: s.method_name for s in stats}
    assert [f"· {methods[pk]}" in text for pk in every] == [True, False]
    rows = _rows(
        client.get(reverse("rankings:chart-detail", args=[test_set.pk, "csv"]))
    )
    assert [int(r["run"]) for r in rows] == every


def test_a_refresh_redraws_the_chart_only_when_what_it_shows_changed(
    stats, test_set, monkeypatch
):  # noqa: ANN001, F811
    """At 1,000 runs a new run mostly lands below the chart's rows: the statistics
    job then stores its numbers without drawing the chart again."""
    from evalhub.rankings import jobs
    from evalhub.rankings.services import charts

    drawn: list[int] = []
    real = charts.draw

    def counting(shown):  # noqa: ANN001, ANN202
        drawn.append(len(shown.rows))
        return real(shown)

    monkeypatch.setattr(charts, "draw", counting)
    test_set.statistics.refresh_from_db()
    before = test_set.statistics.chart_svg.name
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    test_set.statistics.refresh_from_db()
    assert drawn == [] and test_set.statistics.chart_svg.name == before
    Team.objects.filter(name="Other").update(name="Renamed")  # a label it shows
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    assert drawn == [2]
    test_set.statistics.refresh_from_db()
    svg = test_set.statistics.chart_svg.read().decode()
    assert "Renamed" in svg


def test_a_run_below_the_charts_rows_leaves_it_as_it_is(
    stats, task, phase, test_set, bucc_demo, monkeypatch, django_user_model
):  # noqa: ANN001, F811
    """The chart draws the board's first rows only: a new team's run ranked below
    them changes nothing it shows, so the job does not draw it again."""
    from evalhub.competitions.services import teams
    from evalhub.competitions.services.boards import tails
    from evalhub.rankings import jobs
    from evalhub.rankings.services import charts
    from tests.rankings.helpers import scored

    PhaseRanking.objects.filter(phase=phase).update(ladder=False)
    monkeypatch.setattr(tails, "TOP_ROWS", 1)
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    drawn: list[int] = []
    real = charts.draw
    monkeypatch.setattr(
        charts, "draw", lambda shown: drawn.append(len(shown.rows)) or real(shown)
    )
    late = django_user_model.objects.create_user("late", password="pw-late-1")
    teams.register(task=task, user=late, new_team_name="Late")
    runs = {method: files["test"] for _, method, files in bucc_demo.runs}
    scored(phase, late, runs["random"], "late", figures=False)
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    test_set.statistics.refresh_from_db()
    assert len(charts.drawn_runs(test_set.statistics.data)) == 3
    assert drawn == []
