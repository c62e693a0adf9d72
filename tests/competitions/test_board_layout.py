"""The leaderboard's default columns: each task type declares the few metrics a
board shows by default (they exist, the primary metric among them); the others are
in the page, marked to be revealed by the reader."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from evalhub.competitions.services.boards import board_layout
from tasks import registry
from tests.rankings.helpers import scored


@pytest.mark.parametrize("slug", registry.slugs())
def test_each_task_type_declares_a_few_default_metrics_including_the_primary(slug):  # noqa: ANN001
    task_type = registry.get(slug)
    keys = {m.key for m in task_type.metrics}
    assert set(task_type.board_metrics) <= keys
    shown = board_layout.default_metrics(task_type)
    assert task_type.primary_metric in shown
    assert len(shown) <= 6 < len(keys) or len(keys) <= 6


@pytest.mark.django_db
def test_the_board_marks_extra_metrics_and_sets_baselines_apart(
    client, phase, test_set, participant, team, organiser, bucc_demo
):  # noqa: ANN001
    scored(phase, participant, bucc_demo.runs[0][2]["test"], "dictionary")
    baseline = scored(phase, participant, bucc_demo.runs[1][2]["test"], "base")
    type(baseline).objects.filter(pk=baseline.pk).update(is_baseline=True)
    from evalhub.competitions.services.boards import boardcache

    boardcache.invalidate(test_set_id=test_set.pk)
    html = client.get(
        reverse("competitions:leaderboard-detail", args=[phase.task.slug, phase.slug])
    ).content.decode()
    assert '<abbr title="Precision of the first 100 pairs.">P@100</abbr>' in html
    assert (
        'class="num metric-extra phone-extra"><abbr title="Gold pairs retrieved.">TP'
        in html
    )
    assert "Show all 13 metrics" in html
    ranked, baselines = html.split('<tbody class="baselines">')
    assert "dictionary" in ranked and "dictionary" not in baselines
    assert ">base</a>" in baselines


@pytest.mark.django_db
def test_bucc_difficulty_bins_are_a_table_of_their_own(
    client, phase, test_set, participant, team, outsider, bucc_demo
):  # noqa: ANN001
    from evalhub.competitions.models import Score
    from evalhub.competitions.services import teams
    from evalhub.competitions.services.boards import analyses

    teams.register(task=phase.task, user=outsider, new_team_name="Beta")
    # Alpha's two runs (only its best is on the board), Beta's one.
    runs = [
        scored(phase, participant, bucc_demo.runs[0][2]["test"], "method 0"),
        scored(phase, participant, bucc_demo.runs[2][2]["test"], "method 2"),
        scored(phase, outsider, bucc_demo.runs[1][2]["test"], "method 1"),
    ]
    assert "analysis" in analyses.refresh(test_set_id=test_set.pk)
    html = client.get(
        reverse("competitions:leaderboard-detail", args=[phase.task.slug, phase.slug])
    ).content.decode()
    assert "Difficulty of the gold pairs" in html
    assert '<th scope="row">bin<sub>0</sub></th>' in html
    assert 'class="analysis"' not in html  # not the generic dump
    # The bins count the board's runs only: a run off the board (Alpha's lesser
    # one) would be the difference between the bins and the columns (issue 28).
    assert "of the 2 analysed runs" in html
    # One column per run of the leaderboard (not Alpha's lesser run); each run's
    # total in the footer is its true positives.
    tp = {
        s.submission_id: int(s.value)
        for s in Score.objects.filter(
            submission__in=runs, test_set=test_set, metric="tp"
        )
    }
    shown = [runs[0], runs[2]]
    assert html.count('class="num run-col"') == 2
    for run in shown:
        assert f"{run.team.name}: {run.method_name} (run #{run.pk})</th>" in html
    assert f"(run #{runs[1].pk})</th>" not in html
    footer = html.split("<tfoot>")[1].split("</tfoot>")[0]
    totals = re.findall(r'<td class="num">(\d+)</td>', footer)[1:]
    assert [int(t) for t in totals] == [tp[run.pk] for run in shown]
    # The bins' histogram has its PDF (drawn with its SVG) and its data.
    pdf = reverse(
        "api:figure-export", args=[test_set.pk, "analysis-difficulty_bins", "pdf"]
    )
    assert pdf in html
    response = client.get(pdf)
    assert response.status_code == 200 and response.content.startswith(b"%PDF")


@pytest.mark.django_db
def test_mt_lexicon_probe_tables_are_a_table_per_measure_with_runs_as_columns(
    client, probe_lexicon_phase
):  # noqa: ANN001
    from evalhub.competitions.services.boards import analyses
    from tasks import registry

    phase, user, _ = probe_lexicon_phase
    _, method, files = registry.get("mt_lexicon_probe").demo(seed=0).runs[0]
    run = scored(phase, user, next(iter(files.values())), method)
    test_set = phase.test_sets.get()
    assert "analysis" in analyses.refresh(test_set_id=test_set.pk)
    html = client.get(
        reverse("competitions:leaderboard-detail", args=[phase.task.slug, phase.slug])
    ).content.decode()
    assert 'class="analysis"' not in html  # not the generic dump
    for title in ("Table 1: translated", "Table 2: correct", "Table 3: correct"):
        assert f"<h4>{title}" in html
    assert "<h4>Table 4: wrong determiners" in html
    assert html.count(f"{run.method_name} (run #{run.pk})</th>") == 4  # one column each
    assert html.count('<th scope="rowgroup" rowspan="3">adjectives</th>') == 3
