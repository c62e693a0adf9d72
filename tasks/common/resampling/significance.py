"""Paired significance between runs (paired bootstrap, approximate randomisation)
and rank bands (see :mod:`tasks.common.resampling`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tasks.common.resampling.bands import holm_bands
from tasks.common.resampling.items import (
    DEFAULT_ALPHA,
    DEFAULT_SAMPLES,
    DEFAULT_SEED,
    FloatArray,
    ItemStats,
)
from tasks.common.resampling.runs import (
    exact_randomisation,
    pair_tests,
    run_arrays,
    tested,
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


def pairwise(
    stats: Sequence[ItemStats],
    *,
    samples: int = DEFAULT_SAMPLES,
    trials: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
) -> Pairwise:
    """Paired bootstrap and approximate-randomisation p-values for all pairs, from
    each run's arrays (:mod:`.runs`): the same numbers as the platform's stored
    pairs, however they were computed."""
    count = len(stats)
    values = tuple(s.value() for s in stats)
    v = np.array(values)
    delta = v[:, None] - v[None, :] if count else np.zeros((0, 0))
    p_boot = np.ones((count, count))
    p_rand = np.ones((count, count))
    n = stats[0].n if count else 0
    exact = count >= 2 and tested(n) and exact_randomisation(n, trials)
    arrays = run_arrays(stats, samples=samples, trials=trials, seed=seed)
    for i in range(count - 1):
        pairs = pair_tests(arrays[i], arrays[i + 1 :], exact=exact)
        p_boot[i, i + 1 :] = p_boot[i + 1 :, i] = pairs.p_bootstrap
        p_rand[i, i + 1 :] = p_rand[i + 1 :, i] = pairs.p_randomisation
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
    i and j) by the one band rule (:func:`.bands.holm_bands`). Worked example:
    scores 0.9, 0.89, 0.5 where only 0.5 differs significantly from the others ->
    bands 1, 1, 2."""
    p = np.asarray(p_values, dtype=np.float64)
    return holm_bands(
        values,
        lambda i, others: p[i, list(others)],
        higher_is_better=higher_is_better,
        alpha=alpha,
    ).bands
