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
from operator import itemgetter

from tasks.common import ranking

from .formats import Pair


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


def relevance(pairs: Sequence[Pair], gold: frozenset[Pair]) -> list[bool]:
    """rel vector: rel[k-1] is True if the pair at rank k is a gold pair."""
    return list(map(gold.__contains__, pairs))


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


@dataclass(frozen=True, slots=True)
class SourceIndex:
    """Gold source terms (sorted) numbered 0..Q-1, their gold translation counts
    m_s, and for each run rank the number of its source term (-1: not a gold
    source)."""

    names: tuple[str, ...]
    n_gold: tuple[int, ...]
    ids: list[int]


def source_index(pairs: Sequence[Pair], gold: frozenset[Pair]) -> SourceIndex:
    counts: dict[str, int] = {}
    for s, _ in gold:
        counts[s] = counts.get(s, 0) + 1
    names = tuple(sorted(counts))
    number = {name: i for i, name in enumerate(names)}
    ids = list(map(number.get, map(itemgetter(0), pairs), itertools.repeat(-1)))
    return SourceIndex(names, tuple(counts[name] for name in names), ids)


def map_from_index(rel: Sequence[bool], index: SourceIndex) -> float:
    """:func:`map_over_sources` on the source index (same definition, formula, edge
    cases and citation; sums may differ in the last bits). A property test checks
    both agree.

    Example: the :func:`map_over_sources` example gives 19/24 here too (a test).
    """
    q = len(index.names)
    if q == 0:
        return 0.0
    seen = [0] * q
    hits = [0] * q
    sums = [0.0] * q
    for r, i in zip(rel, index.ids, strict=True):
        if i < 0:
            continue
        seen[i] += 1
        if r:
            hits[i] += 1
            sums[i] += hits[i] / seen[i]
    return sum(total / m for total, m in zip(sums, index.n_gold, strict=True)) / q


def _map_at_hits(hit_ranks: Sequence[int], index: SourceIndex) -> float:
    """:func:`map_from_index` from the hit ranks alone (same sums, same order, so the
    same bits): the rank k of a hit within its source's list is the number of that
    source's pairs up to it, counted at C speed between consecutive hits."""
    q = len(index.names)
    if q == 0:
        return 0.0
    seen: Counter[int] = Counter()
    hits = [0] * q
    sums = [0.0] * q
    ids = index.ids
    last = 0
    for rank in hit_ranks:
        seen.update(ids[last:rank])
        last = rank
        i = ids[rank - 1]
        if i < 0:
            continue
        hits[i] += 1
        sums[i] += hits[i] / seen[i]
    return sum(total / m for total, m in zip(sums, index.n_gold, strict=True)) / q


def compute(
    pairs: Sequence[Pair], gold: frozenset[Pair]
) -> tuple[Scores, list[bool], SourceIndex]:
    """All metrics of a run (already filtered and de-duplicated), its rel vector and
    its source index. One pass over the run builds rel; every measure then reads
    only the hit ranks (the same sums in the same order as the functions of
    :mod:`tasks.common.ranking` and :func:`map_from_index`, so the same bits)."""
    rel = relevance(pairs, gold)
    index = source_index(pairs, gold)
    hit_ranks = list(itertools.compress(itertools.count(1), rel))
    n, m = len(pairs), len(gold)
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
        map_source=_map_at_hits(hit_ranks, index),
        n_sys=n,
        n_gold=m,
        tp=tp,
        fp=n - tp,
        fn=m - tp,
    )
    return scores, rel, index
