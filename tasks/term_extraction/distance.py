"""TermoMeter's term distances, as defined (the reference the fast search must equal).

Seed ``000_e26e253ba0317dfc.txt`` (Nazarenko & Zargayouna, "Evaluating term
extraction", §4): a string distance d_s, a compositional (word-level) distance d_c and
their mean d_t. These functions are the plain definitions, one pair at a time; the fast
exact nearest-neighbour search lives in :mod:`tasks.term_extraction.nearest` and is
tested against them.

Every distance is rounded to 12 decimals (``DIGITS``) so that two ways of summing the
same numbers (Hungarian algorithm here, permutation enumeration in the fast search)
give the same float, which keeps ties ("first gold term wins") and ``d <= tau``
identical between the two implementations.
"""

from __future__ import annotations

import numpy as np
from rapidfuzz.distance import Levenshtein
from scipy.optimize import linear_sum_assignment

DIGITS = 12


def quantise(x: float) -> float:
    """Round to ``DIGITS`` decimals with numpy's rule (the fast search uses the same)."""
    return float(np.round(x, DIGITS))


def string_distance(a: str, b: str) -> float:
    """d_s: character edit distance normalised by the longer string.

    Formula: d_s(a, b) = lev(a, b) / max(|a|, |b|), lev = Levenshtein distance
    (insertion, deletion, substitution cost 1), |x| = length in characters.
    Edge case: two empty strings -> 0.0. Range [0, 1].
    Citation: seed 000, §4.1 ("string distance").

    Example (seed 000): d_s("base", "bases") = 1/5 = 0.2,
    d_s("base", "basement") = 4/8 = 0.5, d_s("base", "relational") = 9/10 = 0.9.
    """
    longest = max(len(a), len(b))
    if longest == 0:
        return 0.0
    return Levenshtein.distance(a, b) / longest


def word_cost_matrix(a_words: list[str], b_words: list[str]) -> np.ndarray:
    """The m x m matrix of d_c's assignment problem, m = max(#words): entry (i, j) is
    d_s(a_i, b_j) for two real words, 1 where row or column is padding (insertion or
    deletion of a word)."""
    m = max(len(a_words), len(b_words))
    cost = np.ones((m, m), dtype=np.float64)
    for i, x in enumerate(a_words):
        for j, y in enumerate(b_words):
            cost[i, j] = string_distance(x, y)
    return cost


def compositional_distance(a: str, b: str) -> float:
    """d_c: the cheapest order-free alignment of the words of a and b.

    Formula: words are the whitespace tokens; substituting word x by y costs d_s(x, y),
    inserting or deleting a word costs 1; C = minimum-cost assignment (Hungarian
    algorithm) on the square cost matrix padded with 1s (:func:`word_cost_matrix`);
    d_c(a, b) = C / max(#words(a), #words(b)).
    Edge case: two strings without words -> 0.0. Range [0, 1].
    Citation: seed 000, §4.1 ("compositional distance"); the padding rule is the
    spec's reading of the paper.

    Example (seed 000): d_c("data base", "data bases") = (0 + 0.2) / 2 = 0.1;
    d_c("relational data base", "data base") = (0 + 0 + 1) / 3 = 1/3;
    d_c("relational data base", "web site") = (0.9 + 0.75 + 1) / 3 ~ 0.8833
    (relational/web, data/site, base deleted).
    """
    a_words, b_words = a.split(), b.split()
    m = max(len(a_words), len(b_words))
    if m == 0:
        return 0.0
    cost = word_cost_matrix(a_words, b_words)
    rows, cols = linear_sum_assignment(cost)
    return quantise(float(cost[rows, cols].sum()) / m)


def term_distance(a: str, b: str) -> float:
    """d_t: the mean of the string and compositional distances.

    Formula: d_t(a, b) = (d_s(a, b) + d_c(a, b)) / 2, rounded to 12 decimals.
    Edge cases: identical strings -> 0.0; range [0, 1].
    Citation: seed 000, §4.1. (The paper's printed d_t examples do not follow from
    its own definitions; the spec says not to test them.)

    Example: d_t("data base", "data bases") = (0.1 + 0.1) / 2 = 0.1.
    """
    return quantise((string_distance(a, b) + compositional_distance(a, b)) / 2)


def nearest_brute_force(
    outputs: list[str], gold: list[str]
) -> tuple[list[int], list[float]]:
    """For every output term: index of its nearest gold term (ties: first in gold) and
    the distance, by evaluating d_t on every pair. Slow; for tests and the benchmark
    baseline."""
    indices: list[int] = []
    distances: list[float] = []
    for e in outputs:
        best_i, best_d = -1, 2.0
        for i, r in enumerate(gold):
            d = term_distance(e, r)
            if d < best_d:
                best_i, best_d = i, d
        indices.append(best_i)
        distances.append(best_d)
    return indices, distances
