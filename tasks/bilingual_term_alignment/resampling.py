"""Per-gold-pair statistics of AP for bootstrap intervals and paired tests.

AP = (1/|G|) sum_{g in G found} P@r_g, with r_g the rank of gold pair g and P@r the
share of gold pairs among the first r ranked pairs (0 for a missed pair). Each gold
pair's row is ``[P@r_g, 1]`` (formula ``ratio``), so the published AP is the mean of
the first column; a resample of gold pairs keeps each pair's precision at its rank.

Example: ranks [1, 3, -1] (third pair missed) -> rows [1/1, 1], [2/3, 1], [0, 1] and
AP = (1 + 2/3 + 0) / 3 = 0.5556.

Unit (``TaskType.unit``): the gold pair, each a term of AP's mean. The source term
(grouping a source's gold translations) would need the source in ``detail``, which the
stored evaluations do not have; the interval and both paired tests resample gold pairs.

The other metrics a phase may be ranked by (``TaskType.rankable``) rest on the same
unit, each gold pair with ``hit`` = 1 when the run ranked it (within the cut-off);
the run's wrong pairs (within the cut-off) are a fixed offset, never resampled, as
TermoMeter's unmatched output terms (so a swap of gold pairs between two runs keeps
each precision at most 1):

- P@k (``p_at_100``, ``p_at_1000``; R-precision with k = |G|): rows ``[hit_k,
  hit_k]``, offset ``[0, k - TP_k]`` (formula ``ratio``): P@k = TP_k / k;
- F1: rows ``[hit, hit, hit, 1]``, offset ``[0, FP, 0, 0]`` (formula
  ``f_measure``): P = TP / (TP + FP) = TP / nSys, R = TP / |G|, the scorer's set F1.

Example: ranks [1, 3, 150, -1], k = 100 -> rows [1, 1], [1, 1], [0, 0], [0, 0],
offset [0, 98]: P@100 = 2 / 100.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from tasks.base import JSON
from tasks.common.resampling import ItemStats

#: Metric key -> its cut-off k (None: |G|, the R-precision).
CUT_OFFS: dict[str, int | None] = {
    "p_at_100": 100,
    "p_at_1000": 1000,
    "r_precision": None,
}


def item_stats(
    detail: Mapping[str, JSON],
    payload: Mapping[str, JSON] | None = None,
    metric: str = "ap",
) -> ItemStats | None:
    """The per-gold-pair statistics of ``metric`` (``ap``, ``f1`` or a key of
    :data:`CUT_OFFS`); None when the stored outcome does not say enough."""
    ranks = detail.get("gold_ranks")
    if not isinstance(ranks, list):
        return None
    r = np.asarray(ranks, dtype=np.float64).reshape(-1)
    keys = tuple(str(i) for i in range(len(r)))
    if metric in CUT_OFFS:
        k = CUT_OFFS[metric] or len(r)
        hit = ((r > 0) & (r <= k)).astype(np.float64)
        values = np.column_stack([hit, hit])
        offset = (0.0, float(k - hit.sum()))
        return ItemStats(keys=keys, values=values, formula="ratio", offset=offset)
    if metric == "f1":
        n_sys = (payload or {}).get("n_sys")
        if not isinstance(n_sys, int):
            return None
        hit = (r > 0).astype(np.float64)
        values = np.column_stack([hit, hit, hit, np.ones(len(r))])
        return ItemStats(
            keys=keys,
            values=values,
            formula="f_measure",
            offset=(0.0, float(n_sys - hit.sum()), 0.0, 0.0),
        )
    if metric != "ap":
        return None
    found = r > 0
    contrib = np.zeros(len(r))
    if found.any():
        order = np.sort(r[found])
        hits_up_to = np.searchsorted(order, r[found], side="right")
        contrib[found] = hits_up_to / r[found]
    values = np.column_stack([contrib, np.ones(len(r))])
    return ItemStats(keys=keys, values=values, formula="ratio")
