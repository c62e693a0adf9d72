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

The exact-match F1 (``f1``, TermEval 2020's measure; a phase may rank by it,
``TaskType.rankable``) rests on the same unit: each gold term's row is ``[hit_g, hit_g,
hit_g, 1]`` (hit_g = 1 when an output term is the gold term itself, distance 0),
offset ``[0, |O| - |O ∩ R|, 0, 0]`` (the output terms that are no gold term, fixed
as TermoMeter's unmatched ones): P = sum hit / |O|, R = sum hit / |R|. The rows are
checked against the scorer's count of exact matches (``n_correct``): where they
differ (the ``termeval`` mode compares the written forms, which the stored outcome
does not hold), the run has no statistics for it.

Example: O = {a, b, c, d}, R = {a, b, x}: rows [1, 1, 1, 1], [1, 1, 1, 1],
[0, 0, 0, 1], offset [0, 2, 0, 0] -> P = 1/2, R = 2/3, F1 = 4/7.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from tasks.base import JSON
from tasks.common.resampling import ItemStats


def item_stats(
    detail: Mapping[str, JSON],
    payload: Mapping[str, JSON] | None = None,
    metric: str = "term_f1",
) -> ItemStats | None:
    """The per-gold-term statistics of ``metric`` (``term_f1`` or ``f1``)."""
    if metric == "f1":
        return _exact(detail, payload or {})
    if metric != "term_f1":
        return None
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


def _exact(detail: Mapping[str, JSON], payload: Mapping[str, JSON]) -> ItemStats | None:
    clusters = detail.get("clusters")
    unreached = detail.get("unreached_gold")
    n_output, n_correct = payload.get("n_output"), payload.get("n_correct")
    if not isinstance(clusters, list) or not isinstance(unreached, list):
        return None
    if not isinstance(n_output, int) or not isinstance(n_correct, int):
        return None
    rows: list[tuple[int, str, float]] = []
    for c in clusters:
        if not isinstance(c, dict) or not isinstance(c.get("outputs"), list):
            return None
        exact = any(
            isinstance(o, dict) and o.get("distance") == 0.0 for o in c["outputs"]
        )
        rows.append((_line(c.get("line")), str(c["gold"]), float(exact)))
    for u in unreached:
        if not isinstance(u, dict):
            return None
        rows.append((_line(u.get("line")), str(u["term"]), 0.0))
    if sum(hit for _, _, hit in rows) != n_correct:
        return None
    rows.sort(key=lambda row: (row[0], row[1]))
    values = np.array(
        [[hit, hit, hit, 1.0] for _, _, hit in rows], dtype=np.float64
    ).reshape(-1, 4)
    return ItemStats(
        keys=tuple(f"{line}\t{term}" for line, term, _ in rows),
        values=values,
        formula="f_measure",
        offset=(0.0, float(n_output - n_correct), 0.0, 0.0),
    )


def _line(value: JSON) -> int:
    return int(value) if isinstance(value, (int, float)) else 0
