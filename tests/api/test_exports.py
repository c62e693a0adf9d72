"""Exports: CSV/JSON/LaTeX numbers equal the stored scores, LaTeX is booktabs with the
best value per column in bold and names escaped, figures as SVG and PDF, the runs zip
for organisers only; private test sets and gold stay hidden role by role."""

from __future__ import annotations

import csv
import io
import json
import zipfile

import pytest
from django.urls import reverse

from evalhub.competitions import jobs
from evalhub.competitions.models import Team
from evalhub.competitions.services.boards import exports
from tests.api.fixtures import body, gold_forms, private_score_forms

pytestmark = pytest.mark.django_db


def _export(fmt: str) -> str:
    return reverse("api:leaderboard-export", args=["bucc-test", "evaluation", fmt])


@pytest.fixture
def two_teams(scored, phase, organiser, demo_run, bucc_demo):  # noqa: ANN001, ANN201
    """A second, worse run under a team name full of LaTeX specials (a baseline)."""
    from evalhub.competitions.services.runs import submit

    weird = Team.objects.create(name="R&D_50% #1 {x}")
    worse_run = next(iter(bucc_demo.runs[2][2].values()))
    sub = submit.submit_run(
        phase=phase,
        user=organiser,
        filename="random.tsv",
        data=worse_run,
        method_name="random ~ guess",
        team=weird,
        is_baseline=True,
    )
    jobs.score_submission(sub.pk)
    sub.refresh_from_db()
    assert sub.status == "scored"
    return scored, sub


def test_csv_and_json_numbers_equal_stored_scores(
    client, two_teams, test_set, secret_test_set
):
    runs = {s.pk: s for s in two_teams}
    response = client.get(_export("csv"))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert {r["test_set"] for r in rows} == {"public"}
    assert len(rows) == 2
    for row in rows:
        stored = {
            s.metric: s.value
            for s in runs[int(row["run"])].scores.filter(test_set=test_set)
        }
        for metric, value in stored.items():
            assert (float(row[metric]) if row[metric] else None) == value
    data = json.loads(client.get(_export("json")).content)
    assert [b["test_set"] for b in data["test_sets"]] == ["public"]
    for row in data["test_sets"][0]["rows"]:
        stored = runs[row["run"]].scores.get(test_set=test_set, metric="ap").value
        assert row["ap"] == stored


def _latex_cells(tex: str) -> dict[str, list[str]]:
    """Body rows of the LaTeX export by team cell."""
    return {
        line.split(" & ")[1]: [c.removesuffix(" \\\\") for c in line.split(" & ")]
        for line in tex.splitlines()
        if line.count(" & ") > 2 and not line.startswith("Rank")
    }


@pytest.mark.parametrize("every_column", [False, True])
def test_latex_table(client, two_teams, test_set, phase, every_column):  # noqa: ANN001
    """The board's default columns (``?columns=all``: every metric); the best
    value of each quality metric in bold, per its direction; counts (nSys, TP,
    FP, FN) never bold, whichever is lowest or highest."""
    best, baseline = two_teams
    response = client.get(_export("tex") + ("?columns=all" if every_column else ""))
    assert response.status_code == 200
    tex = response.content.decode()
    assert tex.count("\\begin{tabular}") == 1  # the private test set is hidden
    for command in ("\\toprule", "\\midrule", "\\bottomrule"):
        assert tex.count(command) == 1
    assert "R\\&D\\_50\\% \\#1 \\{x\\}" in tex
    assert "random \\textasciitilde{} guess (baseline)" in tex
    assert "&D_" not in tex
    task_type = phase.task.type
    metrics = (
        list(task_type.metrics)
        if every_column
        else [task_type.metric(k) for k in task_type.default_metrics()]
    )
    assert len(metrics) == (13 if every_column else 4)
    header = next(line for line in tex.splitlines() if line.startswith("Rank"))
    assert header.removesuffix(" \\\\").split(" & ")[3:] == [
        exports.latex_escape(m.label) for m in metrics
    ]
    lines = _latex_cells(tex)
    team_cell = {best.pk: "Alpha", baseline.pk: "R\\&D\\_50\\% \\#1 \\{x\\}"}
    values = {
        sub.pk: {s.metric: s.value for s in sub.scores.filter(test_set=test_set)}
        for sub in two_teams
    }
    for pk, cells in ((pk, lines[team_cell[pk]]) for pk in values):
        for index, metric in enumerate(metrics):
            cell = cells[3 + index]
            value = values[pk][metric.key]
            present = [
                v[metric.key] for v in values.values() if v[metric.key] is not None
            ]
            best_value = None
            if not metric.count and present:
                best_value = (max if metric.higher_is_better else min)(present)
            text = (
                "--"
                if value is None
                else (f"{round(value)}" if metric.count else f"{value:.4f}")
            )
            bold = value is not None and value == best_value
            assert cell == (f"\\textbf{{{text}}}" if bold else text), (metric.key, cell)
            if metric.count:
                assert "textbf" not in cell, metric.key
    # The better run wins the primary metric in bold.
    assert lines["Alpha"][3].startswith("\\textbf{")


def test_latex_escape():
    assert exports.latex_escape("a_b & c\\d^e~") == (
        "a\\_b \\& c\\textbackslash{}d\\textasciicircum{}e\\textasciitilde{}"
    )


def test_exports_hide_private_scores_and_gold_role_by_role(
    client, scored, test_set, secret_test_set, participant, outsider, bucc_demo
):
    forms = private_score_forms(scored, test_set, secret_test_set) + gold_forms(
        bucc_demo
    )
    for user in (None, participant, outsider):
        client.logout()
        if user:
            client.force_login(user)
        for fmt in ("csv", "json", "tex"):
            content = body(client.get(_export(fmt)))
            assert b"secret" not in content.lower(), fmt
            for form in forms:
                assert form not in content, (user, fmt, form)


def test_organiser_exports_include_the_private_test_set(
    client, scored, organiser, secret_test_set
):
    client.force_login(organiser)
    rows = list(
        csv.DictReader(io.StringIO(client.get(_export("csv")).content.decode()))
    )
    secret_row = next(r for r in rows if r["test_set"] == "secret")
    stored = scored.scores.get(test_set=secret_test_set, metric="ap").value
    assert float(secret_row["ap"]) == stored
    assert client.get(_export("tex")).content.decode().count("\\begin{tabular}") == 2


def test_figures_as_svg_and_pdf(client, analysed, test_set, secret_test_set, organiser):
    compare = test_set.task_artefacts.filter(key__startswith="compare-").first()
    assert compare is not None
    svg_url = reverse("api:figure-export", args=[test_set.pk, compare.key, "svg"])
    response = client.get(svg_url)
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    with compare.svg.open("rb") as fh:
        assert response.content == fh.read()
    pdf = client.get(
        reverse("api:figure-export", args=[test_set.pk, compare.key, "pdf"])
    )
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    assert (
        pdf.content.startswith(b"%PDF") and b"/Subtype /Image" not in pdf.content
    )  # vector
    # Not a comparison figure: no PDF; an unknown format or key: 404.
    for key, fmt in ((compare.key, "png"), ("nope", "svg")):
        url = reverse("api:figure-export", args=[test_set.pk, key, fmt])
        assert client.get(url).status_code == 404
    # The private test set's figures: organisers only.
    secret = secret_test_set.task_artefacts.filter(key__startswith="compare-").first()
    url = reverse("api:figure-export", args=[secret_test_set.pk, secret.key, "svg"])
    assert client.get(url).status_code == 404
    client.force_login(organiser)
    assert client.get(url).status_code == 200


def test_every_comparison_pdf_of_a_test_set_costs_one_drawing(
    client, analysed, test_set, monkeypatch
):  # noqa: ANN001
    """A reader downloading every comparison figure as PDF: the first request
    draws the figures of its runs once and keeps each, the others are read (each
    used to draw every figure again: a crawl of N figures drew N x N)."""
    from tasks import registry

    kind = type(registry.get("bilingual_term_alignment"))
    calls = []
    real = kind.comparison_plots

    def counting(self, runs, settings):  # noqa: ANN001, ANN202
        calls.append(len(runs))
        return real(self, runs, settings)

    monkeypatch.setattr(kind, "comparison_plots", counting)
    keys = list(
        test_set.task_artefacts.filter(key__startswith="compare-").values_list(
            "key", flat=True
        )
    )
    assert len(keys) >= 2
    pdfs = [
        client.get(reverse("api:figure-export", args=[test_set.pk, key, "pdf"]))
        for key in keys
    ]
    assert all(r.status_code == 200 and r.content.startswith(b"%PDF") for r in pdfs)
    assert len({r.content for r in pdfs}) == len(keys)  # each its own figure
    assert len(calls) == 1


def test_runs_zip_is_for_organisers_only_and_has_no_gold(
    client, scored, organiser, participant, outsider, demo_run, bucc_demo
):
    url = reverse("api:runs-export", args=["bucc-test", "evaluation"])
    for user in (None, participant, outsider):
        client.logout()
        if user:
            client.force_login(user)
        assert client.get(url).status_code == 404
    client.force_login(organiser)
    response = client.get(url)
    assert response.status_code == 200
    archive = zipfile.ZipFile(io.BytesIO(body(response)))
    names = archive.namelist()
    assert "manifest.csv" in names
    manifest = list(csv.DictReader(io.StringIO(archive.read("manifest.csv").decode())))
    assert [int(r["run"]) for r in manifest] == [scored.pk]
    assert archive.read(manifest[0]["file"]) == demo_run
    stored = scored.scores.get(test_set__slug="secret", metric="ap").value
    assert float(manifest[0]["secret:ap"]) == stored
    gold = bucc_demo.test_sets[0].gold["gold"]
    assert all(archive.read(n) != gold for n in names)
    assert not any("gold" in n for n in names)
