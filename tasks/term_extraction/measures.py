"""Classic exact-match P/R/F and TermoMeter's terminological precision / recall.

Seed ``000_e26e253ba0317dfc.txt`` (Nazarenko & Zargayouna, "Evaluating term
extraction", §4.2-4.3) for TP/TR/TF; TermEval 2020 (ACTER) for the exact-match counts.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

#: The tau grid of every curve: 0.00, 0.01, ..., 1.00.
TAU_GRID: tuple[float, ...] = tuple(round(k / 100, 2) for k in range(101))


def _div(a: float, b: float) -> float:
    return a / b if b else 0.0


def _f1(p: float, r: float) -> float:
    return _div(2 * p * r, p + r)


@dataclass(frozen=True, slots=True)
class Classic:
    n_output: int
    n_gold: int
    n_correct: int
    precision: float
    recall: float
    f1: float


def classic(outputs: Collection[str], gold: Collection[str]) -> Classic:
    """Exact-match precision, recall and F1 of a term list.

    Formula: P = |O ∩ R| / |O|, R = |O ∩ R| / |R|, F1 = 2PR / (P + R), where O is the
    set of (distinct) output terms and R the set of gold terms, compared as strings.
    Edge cases: 0/0 -> 0.0 (empty run: P = R = F1 = 0).
    Citation: TermEval 2020 scorer (ACTER); reproduces the published counts of
    ``ate_nobi_preds/scores`` (en htfl without NEs: 1996, 2361, 1148).

    Example: O = {a, b, c, d}, R = {a, b, x} -> P = 2/4 = 0.5, R = 2/3, F1 = 4/7.
    """
    o, r = set(outputs), set(gold)
    correct = len(o & r)
    p, rec = _div(correct, len(o)), _div(correct, len(r))
    return Classic(len(o), len(r), correct, p, rec, _f1(p, rec))


@dataclass(frozen=True, slots=True)
class TermoScore:
    tau: float
    term_precision: float
    term_recall: float
    term_f1: float
    n_parts: int
    n_matched: int


def termometer(
    nearest_index: npt.NDArray[np.int64],
    nearest_distance: npt.NDArray[np.float64],
    n_gold: int,
    tau: float,
    *,
    matched: npt.NDArray[np.bool_] | None = None,
) -> TermoScore:
    """Terminological precision, recall and F at threshold tau.

    Formula: with d*(e) the distance of output term e to its nearest gold term r*(e),
    pert(e) = 1 - d*(e) if d*(e) <= tau else 0; the partition P(O) puts the output
    terms with d*(e) <= tau in one part per r*(e) and every other term in a part of
    its own; Pert(p) = max_{e in p} pert(e);
    TP = sum_p Pert(p) / |P(O)|, TR = sum_p Pert(p) / |R|, TF = 2 TP TR / (TP + TR).
    Edge cases: empty run -> all 0; 0/0 -> 0.0. At tau = 0 only identical strings
    match, so TP = exact-match precision (the paper's "<=" reading, see the spec).
    Citation: seed 000, §4.2-4.3.

    Example (seed 000): R = {data base}; O = {data base, table of content}: one part
    {data base} with Pert 1, one part {table of content} with Pert 0 ->
    TP = 1/2, TR = 1/1 (tau = 0.4).

    ``matched`` (d*(e) <= tau, decided exactly by ``Nearest.within``) replaces the
    float comparison of ``nearest_distance`` with tau.
    """
    if matched is None:
        matched = nearest_distance <= tau
    n_matched = int(np.count_nonzero(matched))
    if n_matched:
        best = np.full(max(n_gold, 1), np.inf)
        np.minimum.at(best, nearest_index[matched], nearest_distance[matched])
        reached = best[np.isfinite(best)]
        total = float(np.sum(1.0 - reached))
        n_clusters = len(reached)
    else:
        total, n_clusters = 0.0, 0
    n_parts = n_clusters + (len(nearest_distance) - n_matched)
    tp, tr = _div(total, n_parts), _div(total, n_gold)
    return TermoScore(tau, tp, tr, _f1(tp, tr), n_parts, n_matched)


def termometer_curve(
    nearest_index: npt.NDArray[np.int64],
    nearest_distance: npt.NDArray[np.float64],
    n_gold: int,
    taus: Sequence[float] = TAU_GRID,
    *,
    within: Callable[[float], npt.NDArray[np.bool_]] | None = None,
) -> tuple[TermoScore, ...]:
    """:func:`termometer` at every tau of ``taus`` from one nearest-neighbour pass.

    Formula and edge cases as :func:`termometer`; d* and r* do not depend on tau, so
    the whole curve (default tau = 0, 0.01, ..., 1) costs one search.
    Citation: seed 000, §5 and Fig. 1 (TP and matched terms against the threshold).

    Example: R = {data base}, O = {data bases} (d* = 0.1): TP = 0 for tau < 0.1 and
    TP = 0.9 from tau = 0.1 on; n_matched goes from 0 to 1 at tau = 0.1.
    """
    return tuple(
        termometer(
            nearest_index,
            nearest_distance,
            n_gold,
            t,
            matched=None if within is None else within(t),
        )
        for t in taus
    )
