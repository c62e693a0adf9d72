"""Seeded resamples of the gold items and percentile bootstrap intervals (see
:mod:`tasks.common.resampling`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from tasks.common.resampling.items import (
    DEFAULT_CONFIDENCE,
    DEFAULT_SAMPLES,
    DEFAULT_SEED,
    FloatArray,
    Interval,
    ItemStats,
    apply_formula,
)

CHUNK = 256


def _weight_chunks(n: int, samples: int, seed: int) -> Iterator[FloatArray]:
    """``resample_weights`` in consecutive row blocks of at most ``CHUNK`` rows,
    drawn from one generator, so the rows do not depend on the block size."""
    rng = np.random.Generator(np.random.PCG64(seed))
    for start in range(0, samples, CHUNK):
        rows = min(CHUNK, samples - start)
        if n == 0:
            yield np.zeros((rows, 0))
            continue
        idx = rng.integers(0, n, size=(rows, n))
        flat = (idx + (np.arange(rows) * n)[:, None]).reshape(-1)
        counts = np.bincount(flat, minlength=rows * n)
        yield counts.reshape(rows, n).astype(np.float64)


def resample_weights(n: int, samples: int, seed: int) -> FloatArray:
    """``(samples, n)`` multiplicities of ``n`` items drawn ``n`` times with
    replacement; a function of ``(n, samples, seed)`` only."""
    return np.concatenate(list(_weight_chunks(n, samples, seed)), axis=0)


def _check_aligned(stats: Sequence[ItemStats]) -> None:
    for s in stats[1:]:
        if s.keys != stats[0].keys or s.formula != stats[0].formula:
            raise ValueError("runs are not on the same gold items")


def _boot_metrics(stats: Sequence[ItemStats], seed: int, samples: int) -> FloatArray:
    """``(samples, runs)`` metrics on the shared resamples of ``seed``."""
    # One product per run (not one stacked product) so that a run's numbers are
    # bit-for-bit the same whatever other runs share the test set.
    columns = [np.ascontiguousarray(s.values.T) for s in stats]  # (k, n): fast BLAS
    offsets = [np.asarray(s.offset) for s in stats]
    out = []
    for w in _weight_chunks(stats[0].n, samples, seed):
        sums = np.stack(
            [(c @ w.T).T + o for c, o in zip(columns, offsets, strict=True)], axis=1
        )
        out.append(apply_formula(stats[0].formula, sums))
    return np.concatenate(out, axis=0)


def bootstrap_intervals(
    stats: Sequence[ItemStats],
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> list[Interval]:
    """Percentile intervals of several runs on the same gold items (shared
    resamples). Worked example: a run whose items all score 1 has the interval
    [1, 1]."""
    if not stats:
        return []
    _check_aligned(stats)
    values = [s.value() for s in stats]
    if stats[0].n == 0:
        return [Interval(v, v, v, samples, seed, confidence) for v in values]
    boot = _boot_metrics(stats, seed, samples)
    alpha = 1.0 - confidence
    low = np.nanquantile(boot, alpha / 2, axis=0)
    high = np.nanquantile(boot, 1 - alpha / 2, axis=0)
    return [
        Interval(v, float(lo), float(hi), samples, seed, confidence)
        for v, lo, hi in zip(values, low, high, strict=True)
    ]


def bootstrap_interval(
    stats: ItemStats,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Interval:
    return bootstrap_intervals(
        [stats], samples=samples, seed=seed, confidence=confidence
    )[0]
