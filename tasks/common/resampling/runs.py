"""One run's share of every test on a test set, computed once per run, and the paired
tests of two runs from those shares alone (see :mod:`tasks.common.resampling`).

The resamples (bootstrap weights) and the swap trials of approximate randomisation
depend only on ``(n, samples, trials, seed)``, so each run's part of every test can be
computed on its own and kept:

- ``boot``: the run's metric on each of the ``B`` shared resamples;
- ``swaps``: ``masks @ x``, the column sums each swap trial would move, for the
  ``R`` shared swap masks (``(R, k)``); for two runs ``i, j`` the sums moved by a
  trial are ``swaps_i - swaps_j`` (``= masks @ (x_i - x_j)``);
- ``sums``, ``value`` and the per-item ``losses`` (the Ladder).

A new run on a board of ``N`` runs then costs one run's products plus ``N - 1``
element-wise pair tests, instead of all ``N (N - 1) / 2`` pairs' products. Every
product has the same shape whichever runs are computed together and the pair tests
are element-wise, so a pair's numbers are bit-for-bit the same whether it is
computed alone, with the new run's other pairs or in the whole matrix.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from tasks.common.resampling.bootstrap import CHUNK, _weight_chunks
from tasks.common.resampling.items import (
    FloatArray,
    Formula,
    Interval,
    ItemStats,
    apply_formula,
)

#: Tolerance of "at least as extreme as observed" (both tests).
TIE = 1e-12


@dataclass(frozen=True, slots=True, eq=False)
class RunArrays:
    """One run's share of the tests on one test set (module docstring)."""

    formula: Formula
    n: int
    value: float
    sums: FloatArray  # (k,)
    boot: FloatArray  # (samples,); NaN where the metric is undefined
    swaps: FloatArray  # (trials or 2^n, k)


@dataclass(frozen=True, slots=True)
class PairTests:
    """``delta[m] = value(a) - value(others[m])`` and the two-sided p-values."""

    delta: FloatArray
    p_bootstrap: FloatArray
    p_randomisation: FloatArray


def exact_randomisation(n: int, trials: int) -> bool:
    """All ``2^n`` swaps are enumerated (exact test) when there are at most
    ``trials`` of them."""
    return n <= 20 and 2**n <= trials


def tested(n: int) -> bool:
    """With fewer than two items there is no variation to test against (p = 1)."""
    return n >= 2


def swap_masks(n: int, trials: int, seed: int) -> Iterator[FloatArray]:
    """Row blocks of 0/1 swap indicators: all ``2^n`` rows when
    :func:`exact_randomisation`, else ``trials`` random rows; the same for every
    run of a test set."""
    if exact_randomisation(n, trials):
        grid = np.array(list(itertools.product((0.0, 1.0), repeat=n)))
        yield from np.array_split(grid, max(1, len(grid) // CHUNK))
        return
    rng = np.random.Generator(np.random.PCG64([seed, 1]))
    for start in range(0, trials, CHUNK):
        rows = min(CHUNK, trials - start)
        yield rng.integers(0, 2, size=(rows, n)).astype(np.float64)


def run_arrays(
    stats: Sequence[ItemStats], *, samples: int, trials: int, seed: int
) -> list[RunArrays]:
    """Each run's :class:`RunArrays` (runs on the same gold items). One product of
    a fixed shape per run and block, so a run's arrays do not depend on the others
    computed with it."""
    if not stats:
        return []
    n, formula = stats[0].n, stats[0].formula
    for s in stats[1:]:
        if s.keys != stats[0].keys or s.formula != formula:
            raise ValueError("runs are not on the same gold items")
    columns = [np.ascontiguousarray(s.values.T) for s in stats]  # (k, n)
    offsets = [np.asarray(s.offset) for s in stats]
    boot: list[list[FloatArray]] = [[] for _ in stats]
    swaps: list[list[FloatArray]] = [[] for _ in stats]
    if tested(n):
        for w in _weight_chunks(n, samples, seed):
            for r, (c, o) in enumerate(zip(columns, offsets, strict=True)):
                boot[r].append(apply_formula(formula, (c @ w.T).T + o))
        for masks in swap_masks(n, trials, seed):
            for r, c in enumerate(columns):
                swaps[r].append((c @ masks.T).T)
    k = stats[0].values.shape[1]
    return [
        RunArrays(
            formula=formula,
            n=n,
            value=s.value(),
            sums=s.sums,
            boot=np.concatenate(b) if b else np.zeros(0),
            swaps=np.concatenate(m, axis=0) if m else np.zeros((0, k)),
        )
        for s, b, m in zip(stats, boot, swaps, strict=True)
    ]


def pair_tests(a: RunArrays, others: Sequence[RunArrays], *, exact: bool) -> PairTests:
    """Paired bootstrap (shifted null) and approximate-randomisation p-values of
    run ``a`` against each of ``others``, from their arrays only. Symmetric:
    ``(a, b)`` and ``(b, a)`` give the same p-values and opposite deltas."""
    m = len(others)
    values = np.array([o.value for o in others])
    delta = a.value - values
    if not m or not tested(a.n):
        return PairTests(delta, np.ones(m), np.ones(m))
    observed = np.abs(delta) - TIE
    boot = np.stack([o.boot for o in others], axis=1)  # (samples, m)
    d_star = a.boot[:, None] - boot
    ok = ~np.isnan(a.boot)[:, None] & ~np.isnan(boot)
    hit = np.abs(d_star - delta) >= observed
    p_boot = (1 + (hit & ok).sum(axis=0)) / (ok.sum(axis=0) + 1)

    hits = np.zeros(m)
    for start in range(0, m, CHUNK):
        part = others[start : start + CHUNK]
        moved = a.swaps[:, None, :] - np.stack([o.swaps for o in part], axis=1)
        m_a = apply_formula(a.formula, a.sums - moved)
        m_o = apply_formula(a.formula, np.stack([o.sums for o in part]) + moved)
        hits[start : start + len(part)] = (
            np.abs(m_a - m_o) >= observed[start : start + len(part)]
        ).sum(axis=0)
    total = len(a.swaps)
    p_rand = hits / total if exact else (1 + hits) / (total + 1)
    return PairTests(delta, p_boot, p_rand)


def interval_of(
    a: RunArrays, *, samples: int, seed: int, confidence: float
) -> Interval | None:
    """The run's percentile bootstrap interval (:func:`.bootstrap_intervals`' numbers)
    from its resampled metrics; None with fewer than two items."""
    if not tested(a.n):
        return None
    alpha = 1.0 - confidence
    low = float(np.nanquantile(a.boot, alpha / 2))
    high = float(np.nanquantile(a.boot, 1 - alpha / 2))
    return Interval(a.value, low, high, samples, seed, confidence)
