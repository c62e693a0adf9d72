"""Paired significance between runs (paired bootstrap, approximate randomisation)
and rank bands (see :mod:`tasks.common.resampling`)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tasks.common.resampling.bootstrap import (
    CHUNK,
    _boot_metrics,
    _check_aligned,
    _stack,
)
from tasks.common.resampling.items import (
    DEFAULT_ALPHA,
    DEFAULT_SAMPLES,
    DEFAULT_SEED,
    FloatArray,
    ItemStats,
    apply_formula,
)


@dataclass(frozen=True, slots=True)
class Pairwise:
    """Every pair of runs: ``delta[i][j] = m_i - m_j`` and two-sided p-values (1.0
    on the diagonal)."""

    values: tuple[float, ...]
    delta: FloatArray
    p_bootstrap: FloatArray
    p_randomisation: FloatArray
    samples: int
    trials: int
    seed: int
    exact: bool


def _swap_masks(n: int, trials: int, seed: int) -> tuple[Iterator[FloatArray], bool]:
    """Row blocks of 0/1 swap indicators: all ``2^n`` when that is at most
    ``trials`` (exact test), else ``trials`` random rows."""
    if n <= 20 and 2**n <= trials:
        grid = np.array(list(itertools.product((0.0, 1.0), repeat=n)))
        return iter(np.array_split(grid, max(1, len(grid) // CHUNK))), True

    def blocks() -> Iterator[FloatArray]:
        rng = np.random.Generator(np.random.PCG64([seed, 1]))
        for start in range(0, trials, CHUNK):
            rows = min(CHUNK, trials - start)
            yield rng.integers(0, 2, size=(rows, n)).astype(np.float64)

    return blocks(), False


def pairwise(
    stats: Sequence[ItemStats],
    *,
    samples: int = DEFAULT_SAMPLES,
    trials: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
) -> Pairwise:
    """Paired bootstrap and approximate-randomisation p-values for all pairs."""
    runs = len(stats)
    if runs:
        _check_aligned(stats)
    values = tuple(s.value() for s in stats)
    v = np.array(values)
    delta = v[:, None] - v[None, :] if runs else np.zeros((0, 0))
    p_boot = np.ones((runs, runs))
    p_rand = np.ones((runs, runs))
    exact = False
    n = stats[0].n if runs else 0
    # One item: no variation to test against (p stays 1.0).
    if runs >= 2 and n >= 2:
        boot = _boot_metrics(stats, seed, samples)
        valid = ~np.isnan(boot)
        extreme_count = np.zeros((runs, runs))
        valid_count = np.zeros((runs, runs))
        for i in range(runs):
            d_star = boot[:, i : i + 1] - boot  # (samples, runs)
            ok = valid[:, i : i + 1] & valid
            hit = np.abs(d_star - delta[i]) >= np.abs(delta[i]) - 1e-12
            extreme_count[i] = (hit & ok).sum(axis=0)
            valid_count[i] = ok.sum(axis=0)
        p_boot = (1 + extreme_count) / (valid_count + 1)
        np.fill_diagonal(p_boot, 1.0)

        blocks, exact = _swap_masks(n, trials, seed)
        x, offsets = _stack(stats)
        k = x.shape[2]
        sums = x.sum(axis=0) + offsets
        pairs = [(i, j) for i in range(runs) for j in range(i + 1, runs)]
        ii = np.array([i for i, _ in pairs])
        jj = np.array([j for _, j in pairs])
        diff = (x[:, ii] - x[:, jj]).reshape(n, -1)  # (n, pairs * k)
        observed = np.abs(delta[ii, jj])
        hits = np.zeros(len(pairs))
        total = 0
        for masks in blocks:
            moved = (masks @ diff).reshape(len(masks), len(pairs), k)
            m_i = apply_formula(stats[0].formula, sums[ii] - moved)
            m_j = apply_formula(stats[0].formula, sums[jj] + moved)
            hits += (np.abs(m_i - m_j) >= observed - 1e-12).sum(axis=0)
            total += len(masks)
        p = hits / total if exact else (1 + hits) / (total + 1)
        p_rand[ii, jj] = p
        p_rand[jj, ii] = p
    return Pairwise(values, delta, p_boot, p_rand, samples, trials, seed, exact)


def compare(
    a: ItemStats,
    b: ItemStats,
    *,
    samples: int = DEFAULT_SAMPLES,
    trials: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
) -> tuple[float, float, float]:
    """``(m_a - m_b, p paired bootstrap, p approximate randomisation)``."""
    result = pairwise([a, b], samples=samples, trials=trials, seed=seed)
    return (
        float(result.delta[0, 1]),
        float(result.p_bootstrap[0, 1]),
        float(result.p_randomisation[0, 1]),
    )


def rank_bands(
    values: Sequence[float],
    p_values: npt.ArrayLike,
    *,
    higher_is_better: bool = True,
    alpha: float = DEFAULT_ALPHA,
) -> list[int]:
    """Band number (1 = best) of each run (input order; ``p_values[i][j]`` for runs
    i and j). Worked example: scores 0.9, 0.89, 0.5 where only 0.5 differs
    significantly from the others -> bands 1, 1, 2."""
    p = np.asarray(p_values, dtype=np.float64)
    sign = 1.0 if higher_is_better else -1.0
    order = sorted(range(len(values)), key=lambda i: (-sign * values[i], i))
    bands = [0] * len(values)
    band, leader = 0, None
    for i in order:
        if leader is None or (
            p[leader, i] < alpha and sign * (values[leader] - values[i]) > 0
        ):
            band, leader = band + 1, i
        bands[i] = band
    return bands
