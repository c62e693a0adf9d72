"""Metrics of a ranked list against a set of relevant items (IR style).

Input is the relevance vector ``rel`` of the ranked list (``rel[k-1] = 1`` if the item
at rank k is relevant) and ``n_relevant`` = m, the number of relevant items (gold size).
Shared by ``bilingual_term_alignment`` (BUCC 2022 AP) and ``term_extraction`` (ranked
runs). All functions return 0.0 for 0/0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]


def _cum(rel: BoolArray) -> tuple[FloatArray, FloatArray]:
    hits = np.cumsum(rel, dtype=np.float64)
    ranks = np.arange(1, len(rel) + 1, dtype=np.float64)
    return hits, ranks


def precision_at_k(rel: BoolArray, k: int) -> float:
    """P@k = (sum_{i<=k} rel(i)) / k. A list shorter than k is padded with misses
    (trec_eval convention). k <= 0 -> 0.0."""
    if k <= 0:
        return 0.0
    return float(np.count_nonzero(rel[:k])) / k


def average_precision(rel: BoolArray, n_relevant: int) -> float:
    """Uninterpolated AP = (1/m) sum_{k: rel(k)=1} P@k; relevant items never retrieved
    contribute 0 (BUCC 2022 official measure, seed 002, §4.2).

    Example: rel = [1, 0, 1], m = 3 -> (1/1 + 2/3) / 3 = 0.5555...
    """
    if n_relevant <= 0 or len(rel) == 0:
        return 0.0
    hits, ranks = _cum(rel)
    return float(np.sum((hits / ranks)[rel]) / n_relevant)


def interpolated_average_precision(rel: BoolArray, n_relevant: int) -> float:
    """Interpolated AP: each P@k in the AP sum is replaced by the maximum precision
    at any relevant rank k' >= k.

    Example: rel = [0, 1, 1], m = 2 -> P@2 = 1/2, P@3 = 2/3 -> (2/3 + 2/3) / 2 = 2/3.
    """
    if n_relevant <= 0 or len(rel) == 0:
        return 0.0
    hits, ranks = _cum(rel)
    p = (hits / ranks)[rel]
    if len(p) == 0:
        return 0.0
    interp = np.maximum.accumulate(p[::-1])[::-1]
    return float(np.sum(interp) / n_relevant)


def r_precision(rel: BoolArray, n_relevant: int) -> float:
    """R-precision = P@m (m = number of relevant items)."""
    return precision_at_k(rel, n_relevant)


@dataclass(frozen=True, slots=True)
class RankCurves:
    """Precision, recall, F1 and accumulated AP after examining k = 1..n items."""

    k: FloatArray
    precision: FloatArray
    recall: FloatArray
    f1: FloatArray
    ap: FloatArray


def rank_curves(rel: BoolArray, n_relevant: int) -> RankCurves:
    hits, ranks = _cum(rel)
    precision = hits / ranks if len(rel) else np.zeros(0)
    recall = hits / n_relevant if n_relevant else np.zeros(len(rel))
    denom = precision + recall
    f1 = np.divide(2 * precision * recall, denom, out=np.zeros_like(denom), where=denom > 0)
    contrib = np.where(rel, precision, 0.0)
    ap = np.cumsum(contrib) / n_relevant if n_relevant else np.zeros(len(rel))
    return RankCurves(ranks, precision, recall, f1, ap)


def downsample_indices(n: int, max_points: int = 400) -> npt.NDArray[np.int64]:
    """Indices 0..n-1 thinned to about ``max_points``, log-spaced at the head (so log-x
    plots stay smooth) and always keeping the last point."""
    if n <= max_points:
        return np.arange(n, dtype=np.int64)
    log_idx = np.unique(np.geomspace(1, n, max_points // 2).astype(np.int64) - 1)
    lin_idx = np.linspace(0, n - 1, max_points // 2).astype(np.int64)
    return np.unique(np.concatenate([log_idx, lin_idx, [n - 1]]))
