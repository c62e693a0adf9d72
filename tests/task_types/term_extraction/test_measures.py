"""Classic P/R/F and TermoMeter TP/TR/TF: the spec's worked examples."""

from __future__ import annotations

import numpy as np
import pytest

from tasks.term_extraction.measures import (
    TAU_GRID,
    classic,
    termometer,
    termometer_curve,
)
from tasks.term_extraction.nearest import nearest_gold


def _score(outputs: list[str], gold: list[str], tau: float = 0.4):
    nn = nearest_gold(outputs, gold)
    return termometer(nn.index, nn.distance, len(gold), tau)


def test_classic_docstring_example() -> None:
    c = classic(["a", "b", "c", "d"], ["a", "b", "x"])
    assert (c.n_output, c.n_gold, c.n_correct) == (4, 3, 2)
    assert c.precision == 0.5
    assert c.recall == pytest.approx(2 / 3)
    assert c.f1 == pytest.approx(4 / 7)


def test_classic_empty_is_zero() -> None:
    c = classic([], ["a"])
    assert (c.precision, c.recall, c.f1) == (0.0, 0.0, 0.0)


def test_o1_two_variants_of_one_gold_term_count_once() -> None:
    s = _score(["data base", "data bases"], ["data base"])
    assert (s.term_precision, s.term_recall, s.term_f1) == (1.0, 1.0, 1.0)
    assert (s.n_parts, s.n_matched) == (1, 2)


def test_o2_near_miss_counts_partially() -> None:
    s = _score(["data bases"], ["data base"])
    assert s.term_precision == pytest.approx(0.9)
    assert s.term_recall == pytest.approx(0.9)


def test_o3_unrelated_term_is_its_own_part() -> None:
    s = _score(["data base", "table of content"], ["data base"])
    assert s.term_precision == pytest.approx(0.5)
    assert s.term_recall == pytest.approx(1.0)
    assert s.n_parts == 2


def test_threshold_is_inclusive() -> None:
    # d_t(internists, intermacs) = 4/10 = 0.4 exactly: matched at tau = 0.4.
    assert _score(["intermacs"], ["internists"], 0.4).n_matched == 1
    assert _score(["intermacs"], ["internists"], 0.39).n_matched == 0


def test_empty_run_scores_zero() -> None:
    s = termometer(np.zeros(0, dtype=np.int64), np.zeros(0), 3, 0.4)
    assert (s.term_precision, s.term_recall, s.term_f1, s.n_parts) == (0.0, 0.0, 0.0, 0)


def test_curve_at_tau_zero_is_exact_precision() -> None:
    outputs = ["data base", "data bases", "web site", "table"]
    gold = ["data base", "table", "index"]
    nn = nearest_gold(outputs, gold)
    curve = termometer_curve(nn.index, nn.distance, len(gold))
    exact = classic(outputs, gold)
    assert [s.tau for s in curve] == list(TAU_GRID)
    assert len(curve) == 101
    assert curve[0].term_precision == exact.precision
    assert curve[0].term_recall == exact.recall
    assert curve[40] == termometer(nn.index, nn.distance, len(gold), 0.4)
    matched = [s.n_matched for s in curve]
    assert matched == sorted(matched)
    assert matched[-1] == len(outputs)


def test_curve_docstring_example() -> None:
    nn = nearest_gold(["data bases"], ["data base"])
    curve = termometer_curve(nn.index, nn.distance, 1)
    assert [s.term_precision for s in curve[:10]] == [0.0] * 10
    assert all(s.term_precision == pytest.approx(0.9) for s in curve[10:])
    assert [s.n_matched for s in curve[9:11]] == [0, 1]
