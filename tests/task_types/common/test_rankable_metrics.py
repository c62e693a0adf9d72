"""Every metric a task type declares rankable is recomputed from its per-unit
statistics exactly as the scorer computed it, on every demo run: the intervals,
bands and the Ladder of a phase ranked by it rest on the metric that ranks."""

from __future__ import annotations

import math

import pytest

from tasks import registry
from tasks.bilingual_term_alignment.resampling import item_stats as bucc_stats
from tasks.term_extraction.resampling import item_stats as term_stats
from tests.task_types.common.demo_runs import demo_reports


@pytest.mark.parametrize("slug", sorted(registry.REGISTRY))
def test_rankable_metrics_match_the_scorer(slug: str) -> None:
    tt = registry.get(slug)
    rankable = tt.rankable_metrics()
    assert rankable[0] == tt.primary_metric
    for key in rankable:
        metric = tt.metric(key)  # a metric the scorer computes
        assert metric.quality
    checked = 0
    for _ts, _method, report in demo_reports(slug):
        for key in rankable:
            stats = tt.item_statistics(report, key)
            value = report.metrics.get(key)
            if stats is None or value is None:
                continue
            assert math.isclose(stats.value(), value, abs_tol=1e-12), (key, _method)
            checked += 1
    assert checked >= len(rankable)


def test_a_metric_not_rankable_has_no_statistics() -> None:
    assert bucc_stats({"gold_ranks": [1, 3, -1]}, {}, "map_source") is None
    assert term_stats({"clusters": [], "unreached_gold": []}, {}, "precision") is None


def test_worked_examples() -> None:
    p_at_100 = bucc_stats({"gold_ranks": [1, 3, 150, -1]}, {}, "p_at_100")
    assert p_at_100 is not None and p_at_100.value() == pytest.approx(2 / 100)
    detail = {
        "clusters": [
            {"gold": "a", "line": 1, "pert": 1.0, "outputs": [{"distance": 0.0}]},
            {"gold": "b", "line": 2, "pert": 1.0, "outputs": [{"distance": 0.0}]},
        ],
        "unreached_gold": [{"term": "x", "line": 3}],
    }
    exact = term_stats(detail, {"n_output": 4, "n_correct": 2}, "f1")
    assert exact is not None and exact.value() == pytest.approx(4 / 7)
    # The stored outcome disagrees with the scorer's count: no statistics.
    assert term_stats(detail, {"n_output": 4, "n_correct": 1}, "f1") is None
