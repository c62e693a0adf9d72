"""The paired bootstrap against sacrebleu's (``sacrebleu/significance.py``,
``_paired_bs_test``, the procedure of Moses' ``bootstrap-hypothesis-difference-
significance.pl`` and of WMT's paired tests), run by sacrebleu itself on the same
units and the same resamples.

sacrebleu resamples a corpus metric's per-segment sufficient statistics (summed, the
metric computed from the sums); our task types do the same with their units'
(``ItemStats``), so a duck-typed sacrebleu metric hands it our units' rows and the
task type's formula (its offset added to the sums, never resampled). The metric is the
sentence alignment's primary F1 over sentence bisegments on Text+Berg (7 documents,
3 published aligners, ``../shared/data``), and, for p-values away from 0 and 1, the
BUCC-style Wiktionary runs (unit: gold pair).

What is compared, with the same seed and B = 1,000:

- the resamples: ours (``resample_weights``) are sacrebleu's index draws
  (``default_rng(seed).choice(n, (B, n))``) counted per unit, exactly;
- the resampled metrics: sacrebleu's mean and 95 % half-width of the system's
  resampled scores (its ``estimate_ci``) equal the same function of our run's
  resampled metrics, to float32 rounding (sacrebleu sums in float32), so no
  Monte Carlo error enters;
- the p-values. The two procedures differ by design: sacrebleu counts resampled
  absolute differences centred on their mean that exceed the observed one
  (``|d*| - mean |d*| > |d|``, one tail of ``|d*|``); ours, the shifted null of
  Berg-Kirkpatrick et al. (2012), counts ``|d* - d| >= |d|`` (both tails of ``d*``).
  On the same resamples a resample sacrebleu counts and we do not has ``|d*|``
  between ``|d| + mean |d*|`` and ``2 |d|`` (possible only when the bootstrap's bias
  puts ``mean |d*|`` below ``|d|``), so sacrebleu's p exceeds ours by at most those
  resamples' share; and on these runs every resample counts for both or for neither,
  so the p-values are equal (no Monte Carlo error: the same resamples). Both add one
  to the count and to B. Wherever ours rejects at alpha, sacrebleu's does too."""

from __future__ import annotations

import numpy as np
import pytest
from sacrebleu import significance as sb

from tasks.common import resampling as rs
from tasks.common.resampling.bootstrap import resample_weights
from tasks.common.resampling.runs import run_arrays
from tests.task_types.common.test_resampling_references import (
    _bucc_real,
    text_berg_runs,
)

SEED = 12345
B = 1000
ALPHA = 0.05


class _Score:
    def __init__(self, score: float) -> None:
        self.score = score


class _UnitMetric:
    """A sacrebleu metric over our units: the "hypotheses" are a run's unit rows,
    the statistics those rows, the score the task type's formula on their sums."""

    def __init__(self, stats: rs.ItemStats) -> None:
        self.formula, self.offset = stats.formula, np.asarray(stats.offset)

    def _extract_corpus_statistics(self, hypotheses, references):  # noqa: ANN001, ANN202, ARG002
        return [list(row) for row in hypotheses]

    def _compute_score_from_stats(self, sums) -> _Score:  # noqa: ANN001
        return _Score(
            float(rs.apply_formula(self.formula, np.asarray(sums) + self.offset))
        )

    def _aggregate_and_compute(self, stats) -> _Score:  # noqa: ANN001
        return self._compute_score_from_stats(
            np.asarray(stats, dtype=np.float64).sum(0)
        )


def _sacrebleu(baseline: rs.ItemStats, system: rs.ItemStats) -> sb.Result:
    metric = _UnitMetric(baseline)
    info = {"m": (list(baseline.values), sb.Result(baseline.value()))}
    _, results = sb._paired_bs_test(
        info, "system", list(system.values), None, {"m": metric}, n_samples=B, seed=SEED
    )
    return results["m"]


def _check_pair(a: rs.ItemStats, b: rs.ItemStats) -> tuple[float, float]:
    """(sacrebleu's p, ours) for baseline ``a`` and system ``b``."""
    n = a.n
    # The same resamples: sacrebleu's first draw from default_rng(seed).
    idx = np.random.default_rng(SEED).choice(n, size=(B, n), replace=True)
    counts = np.stack([np.bincount(row, minlength=n) for row in idx])
    assert np.array_equal(resample_weights(n, B, SEED), counts)

    theirs = _sacrebleu(a, b)
    arr_a, arr_b = run_arrays([a, b], samples=B, trials=B, seed=SEED)
    # The same resampled metrics (sacrebleu's summary of the system's).
    mean, ci = sb.estimate_ci(arr_b.boot)
    assert theirs.mean == pytest.approx(mean, abs=1e-6)
    assert theirs.ci == pytest.approx(ci, abs=1e-6)
    assert theirs.score == pytest.approx(b.value(), abs=1e-12)

    # sacrebleu's statistic recomputed from our resampled metrics: its p-value.
    delta = b.value() - a.value()
    d_star = arr_b.boot - arr_a.boot
    centred = np.abs(d_star) - np.abs(d_star).mean()
    assert theirs.p_value == pytest.approx(
        sb._compute_p_value(centred, abs(delta)), abs=2 / (B + 1)
    )
    _, ours, _ = rs.compare(b, a, samples=B, trials=B, seed=SEED)
    # A resample sacrebleu counts and we do not lies in the bias band (docstring).
    size = np.abs(d_star)
    band = (size > abs(delta) + size.mean()) & (size < 2 * abs(delta))
    assert theirs.p_value <= ours + (band.sum() + 2) / (B + 1)  # +2: float32 ties
    # On these runs: the same p-value, and so the same decision at alpha.
    assert theirs.p_value == pytest.approx(ours, abs=1e-12)
    if ours < ALPHA:
        assert theirs.p_value < ALPHA
    return theirs.p_value, ours


def test_text_berg_sentence_f1_paired_bootstrap_agrees_with_sacrebleus() -> None:
    runs = text_berg_runs()
    assert {r.n for r in runs} == {7}
    for a, b in zip(runs, runs[1:], strict=False):
        _check_pair(a, b)


def test_bucc_paired_bootstrap_agrees_with_sacrebleus() -> None:
    runs = _bucc_real()
    found = [_check_pair(a, b) for a, b in zip(runs, runs[1:], strict=False)]
    # The near copy (the last pair) is neither clearly apart nor equal on either.
    theirs, ours = found[-1]
    assert 0.0 < theirs < 1.0 and 0.0 < ours < 1.0
