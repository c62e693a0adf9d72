"""Worked examples (computed by hand) for every metric, including the docstrings'."""

from __future__ import annotations

import numpy as np
import pytest

from tasks.bilingual_term_alignment import metrics
from tasks.common import ranking
from tests.task_types.bilingual_term_alignment.coded import compute

GOLD = frozenset({("a", "x"), ("a", "y"), ("b", "z")})


def test_precision_at_k_docstring_and_padding():
    assert ranking.precision_at_k([1, 0, 1], 2) == 0.5
    assert ranking.precision_at_k([1, 0, 1], 4) == 0.5
    assert ranking.precision_at_k([1, 0, 1], 0) == 0.0
    assert ranking.precision_at_k([], 10) == 0.0


def test_average_precision_docstring():
    assert ranking.average_precision([1, 0, 1], 3) == pytest.approx((1 + 2 / 3) / 3)
    # int 0/1 input behaves like booleans (a plain int index would be wrong)
    assert ranking.average_precision(np.array([1, 0, 1]), 3) == pytest.approx(5 / 9)


def test_average_precision_edge_cases():
    assert ranking.average_precision([], 3) == 0.0
    assert ranking.average_precision([1, 1], 0) == 0.0
    assert ranking.average_precision([0, 0], 2) == 0.0
    assert ranking.average_precision([1, 1], 2) == 1.0


def test_interpolated_average_precision_docstring():
    assert ranking.interpolated_average_precision([0, 1, 1], 2) == pytest.approx(2 / 3)
    # rel = [1, 0, 0, 1, 1], m = 4: P at hits 1, 2/4, 3/5 -> interpolated 1, 3/5, 3/5
    assert ranking.interpolated_average_precision([1, 0, 0, 1, 1], 4) == pytest.approx(
        (1 + 0.6 + 0.6) / 4
    )
    assert ranking.average_precision([1, 0, 0, 1, 1], 4) == pytest.approx(
        (1 + 0.5 + 0.6) / 4
    )
    assert ranking.interpolated_average_precision([0, 0], 2) == 0.0


def test_r_precision_docstring():
    assert ranking.r_precision([1, 0, 1, 1], 2) == 0.5
    assert ranking.r_precision([1], 0) == 0.0


def test_rank_curves_docstring():
    rc = ranking.rank_curves([1, 0], 2)
    assert rc.precision.tolist() == [1.0, 0.5]
    assert rc.recall.tolist() == [0.5, 0.5]
    assert rc.ap.tolist() == [0.5, 0.5]
    assert rc.f1.tolist() == pytest.approx([2 / 3, 0.5])


def test_downsample_keeps_last_and_is_small():
    idx = ranking.downsample_indices(54_860)
    assert idx[0] == 0 and idx[-1] == 54_859
    assert len(idx) <= 401
    assert ranking.downsample_indices(5).tolist() == [0, 1, 2, 3, 4]


def test_precision_recall_f1_docstring():
    p, r, f1 = metrics.precision_recall_f1(2, 4, 8)
    assert (p, r) == (0.5, 0.25)
    assert f1 == pytest.approx(1 / 3)
    assert metrics.precision_recall_f1(0, 0, 8) == (0.0, 0.0, 0.0)


def test_map_over_sources_docstring():
    run = [("a", "q"), ("a", "x"), ("b", "z"), ("a", "y")]
    assert metrics.map_over_sources(run, GOLD) == pytest.approx(19 / 24)
    scores, rel = compute(run, GOLD)
    assert rel == [False, True, True, True]
    assert scores.map_source == pytest.approx(19 / 24)


def test_map_over_sources_edge_cases():
    assert metrics.map_over_sources([], GOLD) == 0.0
    assert metrics.map_over_sources([("a", "x")], frozenset()) == 0.0
    # a source without gold translations is not a query; b is a query with AP 0
    assert metrics.map_over_sources([("c", "x"), ("a", "x"), ("a", "y")], GOLD) == 0.5


def test_compute_all_metrics_by_hand():
    # ranks: 1 (a,q) miss, 2 (a,x) hit, 3 (b,z) hit, 4 (c,w) miss
    run = [("a", "q"), ("a", "x"), ("b", "z"), ("c", "w")]
    scores, rel = compute(run, GOLD)
    assert rel == [False, True, True, False]
    assert scores.ap == pytest.approx((1 / 2 + 2 / 3) / 3)
    assert scores.ap_interpolated == pytest.approx((2 / 3 + 2 / 3) / 3)
    assert (scores.n_sys, scores.n_gold, scores.tp, scores.fp, scores.fn) == (
        4,
        3,
        2,
        2,
        1,
    )
    assert scores.precision == 0.5
    assert scores.recall == pytest.approx(2 / 3)
    assert scores.f1 == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    assert scores.p_at_100 == pytest.approx(2 / 100)
    assert scores.p_at_1000 == pytest.approx(2 / 1000)
    assert scores.r_precision == pytest.approx(2 / 3)
    # AP(a) = (1/2) / 2, AP(b) = 1
    assert scores.map_source == pytest.approx((0.25 + 1) / 2)


def test_compute_empty_run_is_all_zero():
    scores, rel = compute([], GOLD)
    assert len(rel) == 0
    assert scores.ap == scores.ap_interpolated == scores.f1 == scores.map_source == 0.0
    assert (scores.n_sys, scores.tp, scores.fp, scores.fn) == (0, 0, 0, 3)
