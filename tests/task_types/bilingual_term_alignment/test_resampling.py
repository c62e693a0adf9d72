from __future__ import annotations

import numpy as np
import pytest

from tasks import registry
from tasks.bilingual_term_alignment.resampling import item_stats
from tasks.common import resampling as rs
from tests.task_types.common.demo_runs import demo_reports

SLUG = "bilingual_term_alignment"


def test_docstring_example() -> None:
    stats = item_stats({"gold_ranks": [1, 3, -1]})
    assert stats is not None
    assert stats.values[:, 0] == pytest.approx([1.0, 2 / 3, 0.0])
    assert stats.value() == pytest.approx(5 / 9)


def test_recomputes_the_published_ap_on_every_demo_run() -> None:
    tt = registry.get(SLUG)
    reports = demo_reports(SLUG)
    assert reports
    for _, _, report in reports:
        stats = tt.item_statistics(report)
        assert stats is not None
        assert stats.value() == pytest.approx(report.metrics["ap"], abs=1e-12)


def test_demo_runs_are_paired_and_ordered() -> None:
    tt = registry.get(SLUG)
    stats = [tt.item_statistics(r) for _, _, r in demo_reports(SLUG)]
    intervals = rs.bootstrap_intervals(stats)  # type: ignore[arg-type]
    for interval in intervals:
        assert interval.low <= interval.value <= interval.high
    result = rs.pairwise(stats)  # type: ignore[arg-type]
    best, worst = int(np.argmax(result.values)), int(np.argmin(result.values))
    assert result.p_randomisation[best, worst] < 0.01


def test_no_detail_gives_none() -> None:
    assert item_stats({}) is None
