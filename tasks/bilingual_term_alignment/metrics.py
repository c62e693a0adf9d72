"""BUCC 2022 metrics of one ranked run against the gold dictionary.

Notation: the filtered, de-duplicated run is r_1 ... r_n, m = |D1,2| is the gold size,
rel(k) = 1 if r_k is a gold pair. Rank-based measures come from
:mod:`tasks.common.ranking`; the set measures follow the official scorer
(github PierreZweigenbaum/bucc2022, ``evaluation.py``, ``set_measures``/``p_r_f1``).
"""

from __future__ import annotations

import itertools
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from tasks.common import ranking

from .formats import Gold, Pair, Run


@dataclass(frozen=True, slots=True)
class Scores:
    ap: float
    ap_interpolated: float
    precision: float
    recall: float
    f1: float
    p_at_100: float
    p_at_1000: float
    r_precision: float
    map_source: float
    n_sys: int
    n_gold: int
    tp: int
    fp: int
    fn: int


def precision_recall_f1(tp: int, n_sys: int, n_gold: int) -> tuple[float, float, float]:
    """Set precision P = TP / nSys, recall R = TP / nGold, F1 = 2PR / (P + R).

    Edge cases: each 0/0 is 0.0 (an empty run scores P = R = F1 = 0; the official
    scorer agrees there; it would give R = 1 for an empty gold, which we reject).
    Citation: official ``evaluation.py``, ``p_r_f1``.

    Example: TP = 2, nSys = 4, nGold = 8 -> P = 0.5, R = 0.25, F1 = 1/3.
    """
    p = tp / n_sys if n_sys else 0.0
    r = tp / n_gold if n_gold else 0.0
    f1 = 2 * p * r / (p + r) if tp else 0.0
    return p, r, f1


def map_over_sources(pairs: Sequence[Pair], gold: frozenset[Pair]) -> float:
    """MAP over source terms (seed 002, section 4.2.1, Eq. 3).

    Definition: one query q per source term s that has gold translations; its ranked
    list is the run's pairs with source s, in run order; m_s = its number of gold
    translations. AP(q) = (1/m_s) sum_{k: rel_s(k)=1} P_s@k, and
    MAP = (1/Q) sum_q AP(q) over the Q gold source terms (a term the run never
    proposes has AP 0). Run pairs whose source has no gold translation are ignored.

    Edge cases: empty gold -> 0.0; empty run -> 0.0.

    Example: gold {(a,x), (a,y), (b,z)}; run [(a,q), (a,x), (b,z), (a,y)]:
    AP(a) = (1/2 + 2/3) / 2 = 7/12, AP(b) = 1 -> MAP = (7/12 + 1) / 2 = 19/24.
    """
    m_by_source: dict[str, int] = {}
    for s, _ in gold:
        m_by_source[s] = m_by_source.get(s, 0) + 1
    if not m_by_source:
        return 0.0
    seen: dict[str, int] = {}
    hits: dict[str, int] = {}
    sums: dict[str, float] = {}
    for pair in pairs:
        s = pair[0]
        if s not in m_by_source:
            continue
        k = seen.get(s, 0) + 1
        seen[s] = k
        if pair in gold:
            h = hits.get(s, 0) + 1
            hits[s] = h
            sums[s] = sums.get(s, 0.0) + h / k
    total = sum(sums[s] / m_by_source[s] for s in sums)
    return total / len(m_by_source)


def _map_at_hits(hit_ranks: Sequence[int], rows: Sequence[int], gold: Gold) -> float:
    """:func:`map_over_sources` from the hit ranks and the run's source rows (same
    definition, formula, edge cases and citation): the rank k of a hit within its
    source's list is the number of that source's pairs up to it, counted at C speed
    between consecutive hits; the per-source APs are added in sorted term order.
    A property test checks both agree.

    Example: the :func:`map_over_sources` example gives 19/24 here too (a test).
    """
    q = len(gold.row_sizes)
    if q == 0:
        return 0.0
    seen: Counter[int] = Counter()
    hits: dict[int, int] = {}
    sums: dict[int, float] = {}
    last = 0
    for rank in hit_ranks:
        seen.update(rows[last:rank])
        last = rank
        row = rows[rank - 1]
        h = hits.get(row, 0) + 1
        hits[row] = h
        sums[row] = sums.get(row, 0.0) + h / seen[row]
    return sum(sums.get(row, 0.0) / m for row, m in gold.row_sizes.items()) / q


def hits_of(codes: Sequence[int], gold: Gold) -> list[int]:
    """The ranks (1-based, increasing) of the run's gold pairs."""
    return list(
        itertools.compress(itertools.count(1), map(gold.codes.__contains__, codes))
    )


def relevance_of(hit_ranks: Sequence[int], n: int) -> list[bool]:
    """The rel vector of a run of n pairs with these hit ranks."""
    rel = [False] * n
    for rank in hit_ranks:
        rel[rank - 1] = True
    return rel


def compute(run: Run, gold: Gold) -> tuple[Scores, list[int]]:
    """All metrics of a run (already filtered and de-duplicated) and its hit ranks.
    One pass over the run's codes finds the hits; every measure then reads only the
    hit ranks (the same sums in the same order as the functions of
    :mod:`tasks.common.ranking`, so the same bits)."""
    hit_ranks = hits_of(run.codes, gold)
    n, m = len(run.codes), len(gold.codes)
    tp = len(hit_ranks)
    p, r, f1 = precision_recall_f1(tp, n, m)
    precisions = [h / k for h, k in enumerate(hit_ranks, start=1)]

    def at(k: int) -> float:
        return float(bisect_right(hit_ranks, k)) / k if k > 0 else 0.0

    scores = Scores(
        ap=ranking.sum_over(precisions, m),
        ap_interpolated=ranking.sum_over(ranking.interpolate(precisions), m),
        precision=p,
        recall=r,
        f1=f1,
        p_at_100=at(100),
        p_at_1000=at(1000),
        r_precision=at(m),
        map_source=_map_at_hits(hit_ranks, run.rows, gold),
        n_sys=n,
        n_gold=m,
        tp=tp,
        fp=n - tp,
        fn=m - tp,
    )
    return scores, hit_ranks
