"""``evalhub compare`` prints the numbers the platform computes: the same runs scored
through the platform's services (real database and cache) and offline give the same
metrics, intervals, rank bands, p-value matrices and signature line."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from evalhub.competitions.models import Score
from evalhub.competitions.services import teams
from evalhub.rankings import jobs
from evalhub.rankings.models import TestSetStatistics
from evalhub.rankings.services import statistics
from tasks import cli
from tests.rankings.helpers import scored

pytestmark = pytest.mark.django_db


def test_compare_equals_the_platform(  # noqa: PLR0913
    task, phase, test_set, bucc_demo, django_user_model, tmp_path: Path
):
    subs = []
    files = {}
    for i, (_, method, runs) in enumerate(bucc_demo.runs):
        user = django_user_model.objects.create_user(f"t{i}")
        teams.register(task=task, user=user, new_team_name=f"Team {i}")
        subs.append(scored(phase, user, runs["test"], method, figures=False))
        files[method] = tmp_path / f"run{i}.tsv"
        files[method].write_bytes(runs["test"])
    ts_data = bucc_demo.test_sets[0]
    for role, data in {**ts_data.inputs, **ts_data.gold}.items():
        (tmp_path / role).write_bytes(data)
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    row = TestSetStatistics.objects.get(test_set=test_set)
    platform = row.data

    out = io.StringIO()
    args = ["compare", "bilingual_term_alignment"]
    args += ["--gold", str(tmp_path / "gold")]
    args += ["--source-terms", str(tmp_path / "source_terms")]
    args += ["--target-terms", str(tmp_path / "target_terms")]
    args += ["--run", *(str(p) for p in files.values())]
    for method in files:
        args += ["--name", method]
    args += ["--gold-version", str(test_set.gold_version), "--format", "json"]
    with redirect_stdout(out):
        assert cli.main(args) == 0
    offline = json.loads(out.getvalue())

    assert offline["signature"] == row.signature
    by_pk = {s.pk: s for s in subs}
    board = platform["matrix"]["runs"]
    assert [r["name"] for r in offline["systems"]] == [
        by_pk[pk].method_name for pk in board
    ]
    for system, pk in zip(offline["systems"], board, strict=True):
        scores = dict(
            Score.objects.filter(submission_id=pk, test_set=test_set).values_list(
                "metric", "value"
            )
        )
        assert system["metrics"] == {k: scores.get(k) for k in system["metrics"]}
        assert system["interval"] == platform["intervals"][str(pk)]
    assert [r["band"] for r in offline["systems"]] == platform["matrix"]["bands"]
    # The stored pairs (computed run by run) are the offline full matrix's.
    pairs = statistics.with_pairs(test_set=test_set, matrix=platform["matrix"])
    for key in ("delta", "p_bootstrap", "p_randomisation", "exact"):
        assert offline[key] == pairs[key]
