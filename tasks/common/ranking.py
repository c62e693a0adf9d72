"""Metrics of a ranked list against a set of relevant items (IR style).

Input is the relevance vector ``rel`` of the ranked list (``rel[k-1] = 1`` if the item
at rank k is relevant) and ``n_relevant`` = m, the number of relevant items (gold size).
Shared by ``bilingual_term_alignment`` (BUCC 2022 AP) and ``term_extraction`` (ranked
runs). All functions return 0.0 for 0/0. ``rel`` may be any 0/1 or boolean sequence.
The scalar measures are plain Python, summed in rank order as the official scorer
sums (so they equal its numbers to the last bit, and the command line needs no
numpy); the curves use numpy, imported when they are drawn.

Checked against the official BUCC 2022 scorer (github PierreZweigenbaum/bucc2022,
``evaluation.py`` v1.1: ``average_precision_uninterpolated`` and
``average_precision_interpolated``) on real runs to 1e-9: see
``tests/task_types/bilingual_term_alignment/test_official_numbers.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    BoolArray = npt.NDArray[np.bool_]
    FloatArray = npt.NDArray[np.float64]
    Relevance = Sequence[bool] | Sequence[int] | npt.NDArray[np.generic]


def _as_list(rel: Relevance) -> list[bool] | list[int]:
    if type(rel) is list:
        return rel  # only its truth values are read
    tolist = getattr(rel, "tolist", None)
    return [bool(r) for r in (tolist() if tolist is not None else rel)]


def _precisions(rel: list[bool] | list[int]) -> list[float]:
    """P@k at each relevant rank k, in rank order."""
    out: list[float] = []
    hits = 0
    for k, r in enumerate(rel, start=1):
        if r:
            hits += 1
            out.append(hits / k)
    return out


def _as_bool(rel: npt.ArrayLike) -> BoolArray:
    import numpy as np

    return np.asarray(rel, dtype=np.bool_).reshape(-1)


def _cum(rel: BoolArray) -> tuple[FloatArray, FloatArray]:
    import numpy as np

    hits = np.cumsum(rel, dtype=np.float64)
    ranks = np.arange(1, len(rel) + 1, dtype=np.float64)
    return hits, ranks


def precision_at_k(rel: Relevance, k: int) -> float:
    """P@k = (sum_{i<=k} rel(i)) / k: the share of relevant items in the top k.

    Edge cases: a list shorter than k is padded with misses (trec_eval convention);
    k <= 0 -> 0.0. Citation: seed 002 (BUCC 2022 overview), section 4.2, P(R_k).

    Example: rel = [1, 0, 1], k = 2 -> 1/2; k = 4 -> 2/4 = 0.5.
    """
    if k <= 0:
        return 0.0
    return float(sum(_as_list(rel[:k]))) / k


def average_precision(rel: Relevance, n_relevant: int) -> float:
    """Uninterpolated AP = (1/m) sum_{k: rel(k)=1} P@k, m = number of relevant items;
    relevant items never retrieved contribute 0 (BUCC 2022 official measure, seed
    002, section 4.2; official ``evaluation.py``, ``average_precision_uninterpolated``).

    Edge cases: m = 0 or an empty list -> 0.0. A repeated item counts each time it
    is marked relevant, so callers de-duplicate first.

    Example: rel = [1, 0, 1], m = 3 -> (1/1 + 2/3) / 3 = 0.5555...
    """
    if len(rel) == 0:
        return 0.0
    return sum_over(_precisions(_as_list(rel)), n_relevant)


def sum_over(precisions: list[float], n_relevant: int) -> float:
    """(1/m) sum of ``precisions`` added in order (0.0 for m <= 0): the AP sum once
    the precisions at the relevant ranks are known."""
    if n_relevant <= 0:
        return 0.0
    total = 0.0
    for p in precisions:
        total += p
    return total / n_relevant


def interpolate(precisions: list[float]) -> list[float]:
    """Each precision replaced by the maximum of it and all later ones (a copy)."""
    out = list(precisions)
    best = 0.0
    for i in range(len(out) - 1, -1, -1):  # the maximum over later relevant ranks
        best = out[i] = max(best, out[i])
    return out


def interpolated_average_precision(rel: Relevance, n_relevant: int) -> float:
    """Interpolated AP = (1/m) sum_{k: rel(k)=1} max_{k' >= k, rel(k')=1} P@k': each
    P@k in the AP sum is replaced by the best precision at any later relevant rank
    (official ``evaluation.py``, ``average_precision_interpolated``: the maximum is
    taken over relevant ranks only).

    Edge cases: m = 0, an empty list or no relevant item -> 0.0.

    Example: rel = [0, 1, 1], m = 2 -> P@2 = 1/2, P@3 = 2/3 -> (2/3 + 2/3) / 2 = 2/3.
    """
    if len(rel) == 0:
        return 0.0
    return sum_over(interpolate(_precisions(_as_list(rel))), n_relevant)


def r_precision(rel: Relevance, n_relevant: int) -> float:
    """R-precision = P@m (m = number of relevant items), padded with misses.

    Edge cases: m = 0 -> 0.0. Citation: trec_eval ``Rprec``.

    Example: rel = [1, 0, 1, 1], m = 2 -> P@2 = 1/2.
    """
    return precision_at_k(rel, n_relevant)


@dataclass(frozen=True, slots=True)
class RankCurves:
    """Precision, recall, F1 and accumulated AP after examining k = 1..n items."""

    k: FloatArray
    precision: FloatArray
    recall: FloatArray
    f1: FloatArray
    ap: FloatArray


def rank_curves(rel: npt.ArrayLike, n_relevant: int) -> RankCurves:
    """P@k, R@k = hits(k) / m, F1@k and AP accumulated to rank k (the AP sum over
    relevant ranks <= k, divided by m), for k = 1..n; the last values equal the
    list's precision, recall, F1 and AP. m = 0 -> recall and AP are all 0.

    Example: rel = [1, 0], m = 2 -> P = [1, 1/2], R = [1/2, 1/2], AP = [1/2, 1/2].
    """
    import numpy as np

    rel = _as_bool(rel)
    hits, ranks = _cum(rel)
    precision = hits / ranks if len(rel) else np.zeros(0)
    recall = hits / n_relevant if n_relevant else np.zeros(len(rel))
    denom = precision + recall
    f1 = np.divide(
        2 * precision * recall, denom, out=np.zeros_like(denom), where=denom > 0
    )
    contrib = np.where(rel, precision, 0.0)
    ap = np.cumsum(contrib) / n_relevant if n_relevant else np.zeros(len(rel))
    return RankCurves(ranks, precision, recall, f1, ap)


def downsample_indices(n: int, max_points: int = 400) -> npt.NDArray[np.int64]:
    """Indices 0..n-1 thinned to about ``max_points``, log-spaced at the head (so log-x
    plots stay smooth) and always keeping the last point."""
    import numpy as np

    if n <= max_points:
        return np.arange(n, dtype=np.int64)
    log_idx = np.unique(np.geomspace(1, n, max_points // 2).astype(np.int64) - 1)
    lin_idx = np.linspace(0, n - 1, max_points // 2).astype(np.int64)
    return np.unique(np.concatenate([log_idx, lin_idx, [n - 1]]))
