"""The statistics refresh grows linearly: run by run, the numbers are exactly those
of the full recompute (every run and pair computed again) and of the offline full
matrix (``rs.pairwise``), with the Ladder off and on. What a new run, new settings,
a time budget and new gold cost: ``test_incremental_board.py``."""

from __future__ import annotations

import pytest

from evalhub.competitions.models import Evaluation
from evalhub.rankings import jobs
from evalhub.rankings.models import (
    PairStatistics,
    PhaseRanking,
    RunStatistics,
    TestSetStatistics,
)
from evalhub.rankings.services import pairs
from tasks.base import ScoreReport
from tasks.common import resampling as rs
from tests.rankings import incremental

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("ladder", [False, True])
def test_run_by_run_equals_the_full_recompute(
    task, phase, test_set, bucc_demo, django_user_model, ladder
):
    PhaseRanking.objects.create(phase=phase, ladder=ladder)
    runs = incremental.submit_all(task, phase, bucc_demo, django_user_model, test_set)
    data, signature, stored = incremental.snapshot(test_set)
    assert len(data["intervals"]) == len(runs)
    assert PairStatistics.objects.filter(test_set=test_set).count() == (
        len(runs) * (len(runs) - 1) // 2
    )

    # The full recompute: nothing stored, every share and pair computed again.
    RunStatistics.objects.all().delete()
    PairStatistics.objects.all().delete()
    TestSetStatistics.objects.all().delete()
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    assert incremental.snapshot(test_set) == (data, signature, stored)

    # And the offline full matrix over the board's runs (``evalhub compare``).
    task_type = task.type
    board = data["matrix"]["runs"]
    details = {
        ev.submission_id: ev
        for ev in Evaluation.objects.filter(test_set=test_set, submission_id__in=board)
    }
    items = [
        task_type.item_statistics(
            ScoreReport(
                metrics={}, payload=details[pk].payload, detail=details[pk].detail
            )
        )
        for pk in board
    ]
    full = rs.pairwise(items)
    assert stored["delta"] == pairs._rounded(full.delta)
    assert stored["p_bootstrap"] == pairs._rounded(full.p_bootstrap)
    assert stored["p_randomisation"] == pairs._rounded(full.p_randomisation)
    assert stored["exact"] == full.exact
    assert data["matrix"]["values"] == list(full.values)
    assert data["matrix"]["bands"] == rs.rank_bands(full.values, full.p_randomisation)
    intervals = rs.bootstrap_intervals(items)
    assert [data["intervals"][str(pk)] for pk in board] == [
        iv.to_json() for iv in intervals
    ]
