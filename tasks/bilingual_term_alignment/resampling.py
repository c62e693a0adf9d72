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
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from tasks.base import JSON
from tasks.common.resampling import ItemStats


def item_stats(detail: Mapping[str, JSON]) -> ItemStats | None:
    ranks = detail.get("gold_ranks")
    if not isinstance(ranks, list):
        return None
    r = np.asarray(ranks, dtype=np.float64).reshape(-1)
    found = r > 0
    contrib = np.zeros(len(r))
    if found.any():
        order = np.sort(r[found])
        hits_up_to = np.searchsorted(order, r[found], side="right")
        contrib[found] = hits_up_to / r[found]
    values = np.column_stack([contrib, np.ones(len(r))])
    return ItemStats(
        keys=tuple(str(i) for i in range(len(r))), values=values, formula="ratio"
    )
