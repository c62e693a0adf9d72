"""User text is never interpreted (issue 15): a team or method name that is a
spreadsheet formula, a mathtext expression or HTML goes through every export, plot and
page as plain text. Through the real views, with runs scored by the platform."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest
from django.urls import reverse

from evalhub.competitions.services import teams
from evalhub.competitions.services.boards import analyses, tables
from evalhub.rankings import jobs as ranking_jobs
from tests.rankings.helpers import scored as _scored

pytestmark = pytest.mark.django_db

FORMULA = '=HYPERLINK("http://evil.example/","x")'
MATHTEXT = r"$\undefinedmacro{x}$"
HTML = "<script>alert(1)</script>"


@pytest.fixture
def hostile_runs(task, phase, test_set, bucc_demo, django_user_model):  # noqa: ANN001, ANN201
    """Two scored runs: one by a team named as a formula with a formula method name,
    one whose method name is mathtext and HTML."""
    runs = [files["test"] for _, _, files in bucc_demo.runs][:2]
    names = [("@SUM(A1:A9)", FORMULA), ("-2+3 team", f"{MATHTEXT} {HTML}")]
    subs = []
    for i, ((team_name, method), data) in enumerate(zip(names, runs, strict=True)):
        user = django_user_model.objects.create_user(f"hostile{i}")
        teams.register(task=task, user=user, new_team_name=team_name)
        subs.append(_scored(phase, user, data, method))
    return subs


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_csv_cell_neutralises_text_never_numbers():
    for text in (FORMULA, "+1+1", "-1+A1", "@x", "\tx", "\r=1", "-", "- team"):
        assert tables.csv_cell(text) == "'" + text
    for number in ("-0.0125", "-1", "+2.5", "1e-05", "-3E+2"):
        assert tables.csv_cell(number) == number
    assert tables.csv_cell(-0.5) == -0.5 and tables.csv_cell(3) == 3
    assert tables.csv_cell("team = good") == "team = good"


def test_leaderboard_csv_export_neutralises_names(client, hostile_runs, test_set):
    url = reverse("api:leaderboard-export", args=["bucc-test", "evaluation", "csv"])
    response = client.get(url)
    assert response.status_code == 200
    rows = {int(r["run"]): r for r in _rows(response.content.decode())}
    first, second = hostile_runs
    assert rows[first.pk]["method"] == "'" + FORMULA
    assert rows[first.pk]["team"] == "'@SUM(A1:A9)"
    assert rows[second.pk]["team"] == "'-2+3 team"
    assert rows[second.pk]["method"] == f"{MATHTEXT} {HTML}"
    # Metric values are numbers as stored, not text.
    ap = first.scores.get(test_set=test_set, metric="ap").value
    assert float(rows[first.pk]["ap"]) == ap


def test_runs_zip_manifest_neutralises_names(client, organiser, hostile_runs):
    client.force_login(organiser)
    url = reverse("api:runs-export", args=["bucc-test", "evaluation"])
    response = client.get(url)
    assert response.status_code == 200
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    rows = {int(r["run"]): r for r in _rows(archive.read("manifest.csv").decode())}
    assert rows[hostile_runs[0].pk]["method"] == "'" + FORMULA


def test_significance_csv_export_neutralises_team_names(client, hostile_runs, test_set):
    assert ranking_jobs.refresh_statistics(test_set.pk) == "refreshed"
    url = reverse("rankings:significance-export", args=[test_set.pk, "csv"])
    response = client.get(url)
    assert response.status_code == 200
    (row,) = _rows(response.content.decode())
    assert {row["team_a"], row["team_b"]} == {"'@SUM(A1:A9)", "'-2+3 team"}
    # A negative difference stays a number.
    assert float(row["delta"]) != 0 and not row["delta"].startswith("'")


def test_latex_exports_escape_names(client, hostile_runs, test_set):
    url = reverse("api:leaderboard-export", args=["bucc-test", "evaluation", "tex"])
    tex = client.get(url).content.decode()
    assert r"\$\textbackslash{}undefinedmacro\{x\}\$" in tex
    assert MATHTEXT not in tex
    ranking_jobs.refresh_statistics(test_set.pk)
    url = reverse("rankings:significance-export", args=[test_set.pk, "tex"])
    tex = client.get(url).content.decode()
    assert r"\$\textbackslash{}undefinedmacro\{x\}\$" in tex


def test_mathtext_name_plots_refresh_and_ranking_svg_answers(
    client, task, phase, hostile_runs, test_set
):
    keys = analyses.refresh(test_set_id=test_set.pk)
    assert any(k.startswith("compare-") for k in keys)
    response = client.get(f"/tasks/{task.slug}/{phase.slug}/ranking.svg")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    assert ranking_jobs.refresh_statistics(test_set.pk) == "refreshed"


def test_leaderboard_page_escapes_html(client, task, phase, hostile_runs):
    response = client.get(f"/tasks/{task.slug}/{phase.slug}/leaderboard/")
    assert response.status_code == 200
    assert HTML.encode() not in response.content
    assert b"&lt;script&gt;alert(1)&lt;/script&gt;" in response.content
