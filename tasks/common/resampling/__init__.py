"""Confidence intervals, paired significance and the Ladder, once for every task type.

A task type exposes the primary metric of a run as **per-item sufficient statistics**
(:class:`ItemStats`, from ``TaskType.item_statistics(report)``): one row of ``k``
numbers per gold item (a gold pair, a gold term, a document, a probe sentence), a
``formula`` turning the column sums into the metric, and an ``offset`` added to the sums
that does not belong to any gold item (e.g. run terms that match no gold term). A
resample of the gold items is then a vector of multiplicities ``w`` (how often each
item was drawn) and the metric on it is ``formula(w @ values + offset)``; with ``w = 1``
it is the published value. This is the sacrebleu / ir_measures pattern (per-item
statistics -> aggregate -> bootstrap).

Methods (all deterministic: the same seed gives the same numbers):

- **Bootstrap confidence interval** (Efron & Tibshirani 1993, ch. 13, percentile
  method): ``B`` resamples of the ``n`` gold items with replacement (default
  ``B = DEFAULT_SAMPLES = 1000``, ``seed = 0``, 95 %); the interval is the
  ``alpha/2`` and ``1 - alpha/2`` quantiles of the ``B`` recomputed metrics. Shown as
  ``value ± h`` with ``h = max(value - low, high - value)`` (sacrebleu's convention).
  The resamples depend only on ``(seed, n, B)``, so all runs on one test set share them
  (a *paired* bootstrap) and a run's interval does not change when others arrive.
- **Paired bootstrap test** (Koehn 2004; shifted null of Berg-Kirkpatrick et al.
  2012): with ``d`` the observed difference of the two runs' metrics and ``d*_b`` its
  value on resample ``b``, ``p = (1 + #{b : |d*_b - d| >= |d|}) / (B + 1)``.
- **Approximate randomisation** (Noreen 1989; Riezler & Maxwell 2005): each item's
  statistics are swapped between the two runs with probability 1/2 in each of ``R``
  trials; ``p = (1 + #{|d'| >= |d|}) / (R + 1)``. When ``2^n <= R`` every one of the
  ``2^n`` swaps is enumerated instead and ``p = #{|d'| >= |d|} / 2^n`` (exact test).
- **Rank bands** (:mod:`.bands`, the one band rule, Holm 1979): rows sorted best
  first; each band's best run is tested (approximate randomisation) against every
  run below it, Holm-corrected at ``alpha``; the band ends before the first rejected
  run, which leads the next band. Runs in one band are not significantly different
  from the band's best run. A board whose ``n`` units cannot give p < alpha
  (:func:`.bands.can_reach`) has no bands.
- **Ladder** (Blum & Hardt 2015, "The Ladder", parameter-free variant): a team's public
  score only moves to a new run when that run beats the run currently shown by more
  than one standard error of the per-item loss differences, ``m_new - m_best >
  z * sd(l_new - l_best) / sqrt(n)`` with ``z = 1`` (a one-sided paired test at one
  standard error; an organiser may ask for a larger margin ``z``).
  Per-item losses are the metric's linearised influence
  ``l_i = -n * grad formula(S) . x_i`` (for a mean metric simply ``-x_i``), so the rule
  is exactly Blum & Hardt's for decomposable metrics. The released value is the run's
  own score (not rounded).

Edge cases: no items -> the interval is the value itself; fewer than two items ->
p = 1.0; a formula's 0/0 is 0.0, as in the scorers; a resample on which the metric is
undefined (``mean_of_ratios`` without judged items) is left out of the quantiles.
"""

from __future__ import annotations

from tasks.common.resampling import bands
from tasks.common.resampling.bootstrap import (
    CHUNK,
    bootstrap_interval,
    bootstrap_intervals,
    resample_weights,
)
from tasks.common.resampling.items import (
    DEFAULT_ALPHA,
    DEFAULT_CONFIDENCE,
    DEFAULT_LADDER_MARGIN,
    DEFAULT_SAMPLES,
    DEFAULT_SEED,
    Formula,
    Interval,
    ItemStats,
    apply_formula,
)
from tasks.common.resampling.ladder import LadderRun, LadderStep, ladder, ladder_of
from tasks.common.resampling.runs import (
    PairTests,
    RunArrays,
    exact_randomisation,
    interval_of,
    pair_tests,
    run_arrays,
    tested,
)
from tasks.common.resampling.significance import (
    Pairwise,
    compare,
    pairwise,
    rank_bands,
)

__all__ = [
    "bands",
    "CHUNK",
    "DEFAULT_ALPHA",
    "DEFAULT_CONFIDENCE",
    "DEFAULT_LADDER_MARGIN",
    "DEFAULT_SAMPLES",
    "DEFAULT_SEED",
    "Formula",
    "Interval",
    "ItemStats",
    "LadderRun",
    "LadderStep",
    "PairTests",
    "RunArrays",
    "Pairwise",
    "apply_formula",
    "bootstrap_interval",
    "bootstrap_intervals",
    "compare",
    "exact_randomisation",
    "interval_of",
    "ladder",
    "ladder_of",
    "pair_tests",
    "pairwise",
    "rank_bands",
    "resample_weights",
    "run_arrays",
    "tested",
]
