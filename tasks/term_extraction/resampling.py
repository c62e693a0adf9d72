"""Per-gold-term statistics of TermoMeter's TF for bootstrap intervals and tests.

TP = sum Pert / |parts|, TR = sum Pert / |R|, TF = 2 TP TR / (TP + TR). Each gold term
g is one item with row ``[Pert_g, part_g, Pert_g, 1]`` (Pert_g = 1 - d* of its closest
output term within tau, else 0; part_g = 1 when some output term reaches it); the
output terms that reach no gold term are parts of their own and go into the offset
``[0, #unmatched, 0, 0]`` (formula ``f_measure``). Items are keyed by gold line and
term, so two runs on the same gold pair up.

Example (seed 000): R = {data base}; O = {data base, table of content}: item
[1, 1, 1, 1], offset [0, 1, 0, 0] -> TP = 1/2, TR = 1, TF = 2/3.

Unit (``TaskType.unit``): the gold term, one pertinence each in TP and TR; the
unmatched output terms are the offset and are never resampled.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from tasks.base import JSON
from tasks.common.resampling import ItemStats


def item_stats(detail: Mapping[str, JSON]) -> ItemStats | None:
    clusters = detail.get("clusters")
    unreached = detail.get("unreached_gold")
    unmatched = detail.get("unmatched_outputs")
    if not isinstance(clusters, list) or not isinstance(unreached, list):
        return None
    rows: list[tuple[int, str, float, float]] = []
    for c in clusters:
        if not isinstance(c, dict):
            return None
        rows.append((_line(c.get("line")), str(c["gold"]), float(c["pert"]), 1.0))
    for u in unreached:
        if not isinstance(u, dict):
            return None
        rows.append((_line(u.get("line")), str(u["term"]), 0.0, 0.0))
    rows.sort(key=lambda row: (row[0], row[1]))
    values = np.array(
        [[pert, part, pert, 1.0] for _, _, pert, part in rows], dtype=np.float64
    ).reshape(-1, 4)
    n_unmatched = len(unmatched) if isinstance(unmatched, list) else 0
    return ItemStats(
        keys=tuple(f"{line}\t{term}" for line, term, _, _ in rows),
        values=values,
        formula="f_measure",
        offset=(0.0, float(n_unmatched), 0.0, 0.0),
    )


def _line(value: JSON) -> int:
    return int(value) if isinstance(value, (int, float)) else 0
