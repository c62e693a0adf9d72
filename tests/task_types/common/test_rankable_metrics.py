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


@pytest.mark.parametrize("slug", ["bilingual_term_alignment", "term_extraction"])
def test_a_swap_of_units_keeps_every_metric_a_share(slug: str) -> None:
    """The paired tests give one run another run's rows (its units' outcomes) over
    its own offset: each rankable metric must stay between 0 and 1 then (a fixed
    denominator, e.g. nSys or k, would let a precision pass 1 and the test lose
    its power)."""
    from tasks.common.resampling import apply_formula

    tt = registry.get(slug)
    reports = [r for _, _, r in demo_reports(slug)]
    for key in tt.rankable_metrics():
        stats = [tt.item_statistics(r, key) for r in reports]
        stats = [s for s in stats if s is not None]
        for a in stats:
            for b in stats:
                if a.keys != b.keys:
                    continue
                swapped = apply_formula(a.formula, b.values.sum(axis=0) + a.offset)
                assert 0.0 <= float(swapped) <= 1.0 + 1e-12, (key, float(swapped))


def test_a_short_run_given_a_long_run_s_hits_stays_a_share() -> None:
    from tasks.common.resampling import apply_formula

    short = {"gold_ranks": [1, -1, -1, -1]}  # one pair ranked, correct
    long = {"gold_ranks": [1, 2, 3, 4]}
    for key, payloads in (
        ("f1", ({"n_sys": 1}, {"n_sys": 4})),
        ("p_at_100", ({}, {})),
    ):
        a = bucc_stats(short, payloads[0], key)
        b = bucc_stats(long, payloads[1], key)
        assert a is not None and b is not None
        swapped = float(apply_formula(a.formula, b.values.sum(axis=0) + a.offset))
        assert 0.0 <= swapped <= 1.0, (key, swapped)
