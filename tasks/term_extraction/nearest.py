"""Exact nearest gold term for every output term, fast (TermoMeter's one expensive step).

The result equals :func:`tasks.term_extraction.distance.nearest_brute_force` (tests
compare them on random samples): for each output term e, r*(e) = argmin_r d_t(e, r),
ties to the gold term that comes first, and d*(e).

How it stays exact and gets fast:

1. d_s for every (output, gold) pair with ``rapidfuzz.process.cdist`` (C++, all cores,
   float32), in blocks of output rows so memory stays bounded; the exact float64 d_s
   is rebuilt only for the pairs that need it (lev = rint(d_s * longest)).
2. Lower bounds on d_c, all cheap: (a) |#w(a) - #w(b)| / m with m = max #words (each
   unmatched word costs 1); (b) (sum_i mu(a_i) + m - #w(a)) / m, where mu(x) is the
   distance of word x to the closest word of the whole gold vocabulary (a real row of
   the assignment costs at least mu, a padding row exactly 1); (c) symmetrically
   sum_j nu(b_j) / #w(b) with nu over the output vocabulary. Hence
   d_t >= (d_s + max(a, b, c)) / 2; gold is sorted by word count so (a) and (b) are
   per-row constants on each segment.
3. An upper bound per output term: the exact d_t of the gold term with the smallest d_s.
4. Exact d_t only for the pairs whose bound is not above that upper bound (plus a
   small slack covering float32 rounding). d_c is computed vectorised per word-count
   shape from a word-to-word Levenshtein table (``cdist`` once per vocabulary pair):
   one word against m words is a row minimum plus m - 1; up to 5 words every
   permutation is enumerated in numpy (the minimum over permutations is the
   assignment optimum); longer terms go to ``scipy.optimize.linear_sum_assignment``
   one pair at a time.
5. Per output term the smallest d_t wins, ties to the smallest original gold index.
   Distances are rationals and the float sums above may differ in the last bits for
   equal values, so every candidate within ``EPS`` of a row's float minimum is
   re-evaluated exactly (:func:`~tasks.term_extraction.distance.exact_term_distance`)
   and the exact minimum wins. Likewise :meth:`Nearest.within` decides ``d <= tau``
   exactly for the distances within ``EPS`` of tau (tau read as the decimal it is
   written as: 0.6 = 3/5).

Output terms found verbatim in the gold skip all this (d* = 0).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import numpy.typing as npt
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from tasks.term_extraction.distance import exact_term_distance, term_distance_parts

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

#: Output rows per block x gold size is kept near this many cells.
BLOCK_CELLS = 2_000_000
#: Shapes with more words than this are solved with scipy, one pair at a time.
MAX_ENUMERATED = 5
#: Slack on the pruning test so float rounding can never prune a true nearest term.
SLACK = 1e-5
#: Float distances closer than this to a row's minimum or to tau are re-evaluated
#: exactly (float errors here are below 1e-15).
EPS = 1e-9


@dataclass(frozen=True, slots=True)
class Nearest:
    """r*(e) (index into the gold list) and d*(e) for each output term, in order.

    ``distance`` is for display and sums (within 1e-15 of the exact value);
    comparisons with a threshold go through :meth:`within`, which is exact."""

    index: IntArray
    distance: FloatArray
    n_exact: int  # pairs whose d_t was computed beyond the bounds (for benchmarks)
    outputs: tuple[str, ...] = ()
    gold: tuple[str, ...] = ()
    #: Exact d*(e) of the rows computed so far (row -> Fraction).
    exact: dict[int, Fraction] = field(default_factory=dict)

    def exact_distance(self, row: int) -> Fraction:
        """d*(e) of output term ``row`` as an exact rational."""
        if row not in self.exact:
            i = int(self.index[row])
            self.exact[row] = (
                Fraction(1)
                if i < 0
                else exact_term_distance(self.outputs[row], self.gold[i])
            )
        return self.exact[row]

    def within(self, tau: float) -> BoolArray:
        """d*(e) <= tau for every output term, decided exactly; tau is read as the
        decimal it is written as (``repr``), so 0.6 means 3/5."""
        d = self.distance
        matched = d <= tau - EPS
        unsure = np.nonzero((d > tau - EPS) & (d < tau + EPS))[0]
        if len(unsure):
            exact_tau = Fraction(repr(float(tau)))
            for row in unsure.tolist():
                matched[row] = self.exact_distance(row) <= exact_tau
        return matched


class _Side:
    """Terms of one side: lengths, word counts and word ids into a vocabulary."""

    def __init__(self, terms: list[str]) -> None:
        self.terms = terms
        self.lengths = np.array([len(t) for t in terms], dtype=np.int64)
        words = [t.split() for t in terms]
        vocab: dict[str, int] = {}
        for ws in words:
            for w in ws:
                vocab.setdefault(w, len(vocab))
        self.vocab = list(vocab)
        self.word_lengths = np.array([len(w) for w in self.vocab], dtype=np.int64)
        self.n_words = np.array([len(ws) for ws in words], dtype=np.int64)
        width = int(self.n_words.max()) if terms else 0
        self.word_ids = np.full((len(terms), max(width, 1)), -1, dtype=np.int64)
        for i, ws in enumerate(words):
            self.word_ids[i, : len(ws)] = [vocab[w] for w in ws]


class _WordTable:
    """Levenshtein distances between every output word and every gold word."""

    def __init__(self, out: _Side, gold: _Side) -> None:
        longest = max(
            int(out.word_lengths.max(initial=0)), int(gold.word_lengths.max(initial=0))
        )
        dtype = np.uint8 if longest < 255 else np.int32
        self.dist = process.cdist(
            out.vocab, gold.vocab, scorer=Levenshtein.distance, dtype=dtype, workers=-1
        )
        self.out_len = out.word_lengths
        self.gold_len = gold.word_lengths
        # Each word's distance to the closest word of the other side's vocabulary
        # (float32: only used in bounds, which carry a slack).
        self.out_min = np.ones(len(out.vocab), dtype=np.float64)
        self.gold_min = np.ones(len(gold.vocab), dtype=np.float64)
        inv_out = 1 / np.maximum(self.out_len, 1).astype(np.float32)
        inv_gold = 1 / np.maximum(self.gold_len, 1).astype(np.float32)
        step = max(1, 4_000_000 // max(1, len(gold.vocab)))
        for lo in range(0, len(out.vocab), step):
            hi = min(len(out.vocab), lo + step)
            # lev / max(len) = lev * min(1 / len)
            inv = np.minimum(inv_out[lo:hi, None], inv_gold[None, :])
            ds = self.dist[lo:hi] * inv
            if ds.shape[1]:
                self.out_min[lo:hi] = ds.min(axis=1)
                np.minimum(self.gold_min, ds.min(axis=0), out=self.gold_min)

    def word_min_sums(self, side: _Side, minima: FloatArray) -> FloatArray:
        """Per term of ``side``: the sum over its words of ``minima``."""
        padded = np.append(minima, 0.0)
        return padded[side.word_ids].sum(axis=1)

    def costs(self, a: IntArray, b: IntArray) -> FloatArray:
        """d_s between output word ids ``a`` and gold word ids ``b`` (same shape)."""
        longest = np.maximum(self.out_len[a], self.gold_len[b])
        return self.dist[a, b].astype(np.float64) / longest


def nearest_gold(outputs: list[str], gold: list[str]) -> Nearest:
    """Exact r*(e) and d*(e) for every output term (see the module docstring)."""
    n = len(outputs)
    # A term found verbatim is at distance 0 from its first occurrence in the gold
    # (d_t = 0 only for identical strings): no search needed.
    first: dict[str, int] = {}
    for i, term in enumerate(gold):
        first.setdefault(term, i)
    found = np.array([first.get(t, -1) for t in outputs], dtype=np.int64)
    rest = np.nonzero(found < 0)[0]
    searched = _search([outputs[i] for i in rest], gold)
    index = found.copy()
    distance = np.zeros(n, dtype=np.float64)
    index[rest] = searched.index
    distance[rest] = searched.distance
    exact = {int(rest[row]): d for row, d in searched.exact.items()}
    return Nearest(
        index, distance, searched.n_exact, tuple(outputs), tuple(gold), exact
    )


def _search(outputs: list[str], gold: list[str]) -> Nearest:
    """:func:`nearest_gold` for output terms that are not gold terms."""
    n, g = len(outputs), len(gold)
    index = np.full(n, -1, dtype=np.int64)
    distance = np.ones(n, dtype=np.float64)
    exact: dict[int, Fraction] = {}
    if n == 0 or g == 0:
        return Nearest(index, distance, 0)
    # Gold sorted by word count, so |#w(a) - #w(b)| is constant on column segments.
    by_words = sorted(range(g), key=lambda i: len(gold[i].split()))
    gold_sorted = [gold[i] for i in by_words]
    original = np.array(by_words, dtype=np.int64)
    out, ref = _Side(outputs), _Side(gold_sorted)
    table = _WordTable(out, ref)
    solver = _Solver(out, ref, table)
    # Word-minimum bounds (b) and (c) of the module docstring.
    out_sums = table.word_min_sums(out, table.out_min)
    gold_bound = (
        table.word_min_sums(ref, table.gold_min) / np.maximum(ref.n_words, 1)
    ).astype(np.float32)
    counts, seg_start = np.unique(ref.n_words, return_index=True)
    seg_end = np.append(seg_start[1:], g)
    block = max(1, BLOCK_CELLS // g)
    n_exact = 0
    for start in range(0, n, block):
        rows = np.arange(start, min(n, start + block))
        # float32 d_s from C++; the exact float64 value is rebuilt below for the
        # pairs that need it (lev = round(d_s * longest) is exact at these lengths).
        approx = process.cdist(
            outputs[start : start + block],
            gold_sorted,
            scorer=Levenshtein.normalized_distance,
            dtype=np.float32,
            workers=-1,
        )
        probe = np.argmin(approx, axis=1)
        probe_d = solver.exact(
            rows, probe, _exact_ds(approx, rows - start, probe, out, ref, rows)
        )
        twice_upper = 2 * probe_d + SLACK
        nw = out.n_words[rows]
        parts_local, parts_cols = [], []
        sums = out_sums[rows]
        for count, lo, hi in zip(counts, seg_start, seg_end, strict=True):
            # Keep (e, r) unless d_s + lower bound of d_c > 2 * upper (module doc).
            m = np.maximum(nw, count)
            row_bound = np.maximum(np.abs(nw - count), sums + m - nw) / np.maximum(m, 1)
            limit = (twice_upper - row_bound).astype(np.float32)
            block_ds = approx[:, lo:hi]
            keep = block_ds <= limit[:, None]
            keep &= block_ds + gold_bound[None, lo:hi] <= twice_upper[:, None].astype(
                np.float32
            )
            loc, col = np.nonzero(keep)
            parts_local.append(loc)
            parts_cols.append(col + lo)
        local = np.concatenate(parts_local)
        cols = np.concatenate(parts_cols)
        d = solver.exact(
            rows[local],
            cols,
            _exact_ds(approx, local, cols, out, ref, rows[local]),
            twice_upper[local],
        )
        n_exact += len(d) + len(probe_d)
        # Per row: smallest d, then smallest index in the original gold order.
        gold_index = original[cols]
        order = np.lexsort((gold_index, d, local))
        first = np.ones(len(order), dtype=bool)
        first[1:] = local[order][1:] != local[order][:-1]
        chosen = order[first]
        index[rows[local[chosen]]] = gold_index[chosen]
        distance[rows[local[chosen]]] = d[chosen]
        _settle_near_ties(
            outputs, gold, rows, local, d, gold_index, index, distance, exact
        )
    return Nearest(index, distance, n_exact, exact=exact)


def _settle_near_ties(
    outputs: list[str],
    gold: list[str],
    rows: IntArray,
    local: IntArray,
    d: FloatArray,
    gold_index: IntArray,
    index: IntArray,
    distance: FloatArray,
    exact: dict[int, Fraction],
) -> None:
    """Rows with two or more candidates within ``EPS`` of their float minimum: the
    exact minimum wins, ties to the first gold term (module docstring, step 5)."""
    row_min = np.full(len(rows), np.inf)
    np.minimum.at(row_min, local, d)
    # A row whose minimum is 1.0 is an exact tie at 1 (d_t <= 1, and a float 1.0
    # means every character and word differs: exact), already won by the first
    # gold term.
    near = np.nonzero((d <= row_min[local] + EPS) & (row_min[local] < 1.0))[0]
    counts = np.bincount(local[near], minlength=len(rows))
    tied = near[counts[local[near]] > 1]
    if len(tied) == 0:
        return
    tied = tied[np.argsort(local[tied], kind="stable")]
    starts = np.flatnonzero(np.diff(local[tied], prepend=-1))
    for group in np.split(tied, starts[1:]):
        r = int(local[group[0]])
        term = outputs[int(rows[r])]
        best_g, (best_n, best_d) = -1, (2, 1)
        for g in sorted(gold_index[group].tolist()):
            n, den = term_distance_parts(term, gold[g])
            if n * best_d < best_n * den:
                best_g, best_n, best_d = g, n, den
        row = int(rows[r])
        value = Fraction(best_n, best_d)
        index[row], distance[row], exact[row] = best_g, float(value), value


def _exact_ds(
    approx: npt.NDArray[np.float32],
    local: IntArray,
    cols: IntArray,
    out: _Side,
    ref: _Side,
    rows: IntArray,
) -> FloatArray:
    """float64 d_s = lev / longest, recovering the integer lev from the float32 value."""
    longest = np.maximum(np.maximum(out.lengths[rows], ref.lengths[cols]), 1)
    lev = np.rint(approx[local, cols].astype(np.float64) * longest)
    return lev / longest


class _Solver:
    """Exact d_t for arbitrary (output, gold) pairs, vectorised by word-count shape."""

    def __init__(self, out: _Side, gold: _Side, table: _WordTable) -> None:
        self.out, self.gold, self.table = out, gold, table
        self._perms = {
            m: np.array(list(itertools.permutations(range(m))), dtype=np.int64)
            for m in range(2, MAX_ENUMERATED + 1)
        }

    def exact(
        self,
        oi: IntArray,
        gi: IntArray,
        d_s: FloatArray,
        twice_limit: FloatArray | None = None,
    ) -> FloatArray:
        """d_t for pairs (oi[k], gi[k]) given their d_s.

        With ``twice_limit``, a long-term pair whose d_t provably exceeds
        twice_limit / 2 may get a lower bound above that instead of its exact value
        (it cannot be a nearest term then)."""
        na, nb = self.out.n_words[oi], self.gold.n_words[gi]
        m = np.maximum(na, nb)
        cost = np.empty(len(oi), dtype=np.float64)
        cost_limit = None if twice_limit is None else (twice_limit - d_s) * m
        shapes = na * 1000 + nb
        for shape in np.unique(shapes):
            sel = np.nonzero(shapes == shape)[0]
            a, b = int(shape // 1000), int(shape % 1000)
            limit = None if cost_limit is None else cost_limit[sel]
            cost[sel] = self._assignment(oi[sel], gi[sel], a, b, limit)
        d_c = np.divide(cost, m, out=np.zeros_like(cost), where=m > 0)
        return (d_s + d_c) / 2

    def _assignment(
        self, oi: IntArray, gi: IntArray, a: int, b: int, limit: FloatArray | None
    ) -> FloatArray:
        """Minimum assignment cost of the padded m x m word matrix, for one shape
        (for long terms, a lower bound above ``limit`` where there is one)."""
        m = max(a, b)
        if min(a, b) == 0:
            # A side without words: every word of the other side costs 1.
            return np.full(len(oi), float(m))
        wa = self.out.word_ids[oi, :a]
        wb = self.gold.word_ids[gi, :b]
        if min(a, b) == 1:
            # One real word on one side: it takes its best partner, the rest cost 1.
            if a == 1:
                costs = self.table.costs(np.broadcast_to(wa, wb.shape), wb)
            else:
                costs = self.table.costs(wa, np.broadcast_to(wb, wa.shape))
            return costs.min(axis=1) + (m - 1)
        w = self.table.costs(wa[:, :, None], wb[:, None, :])
        padded = np.ones((len(oi), m, m), dtype=np.float64)
        padded[:, :a, :b] = w
        if m <= MAX_ENUMERATED:
            perms = self._perms[m]
            out = np.empty(len(oi), dtype=np.float64)
            step = max(1, 400_000 // (len(perms) * m))
            rows = np.arange(m)
            for s in range(0, len(oi), step):
                chunk = padded[s : s + step]
                out[s : s + step] = (
                    chunk[:, rows[None, :], perms].sum(axis=2).min(axis=1)
                )
            return out
        # Row- and column-minimum bounds spare most scipy calls.
        result = np.maximum(
            padded.min(axis=2).sum(axis=1), padded.min(axis=1).sum(axis=1)
        )
        todo = (
            range(len(oi)) if limit is None else np.nonzero(result <= limit + SLACK)[0]
        )
        from scipy.optimize import linear_sum_assignment  # slow import: only here

        for k in todo:
            r, c = linear_sum_assignment(padded[k])
            result[k] = padded[k][r, c].sum()
        return result
