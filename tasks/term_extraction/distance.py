"""TermoMeter's term distances, as defined (the reference the fast search must equal).

Seed ``000_e26e253ba0317dfc.txt`` (Nazarenko & Zargayouna, "Evaluating term
extraction", §4): a string distance d_s, a compositional (word-level) distance d_c and
their mean d_t. These functions are the plain definitions, one pair at a time; the fast
nearest-neighbour search lives in :mod:`tasks.term_extraction.nearest` and is tested
against them.

Every distance is a rational number (edit distances divided by lengths), so the
``exact_*`` functions return :class:`fractions.Fraction` and the float functions are
those values correctly rounded, for display. Ties ("the first gold term wins") and
``d <= tau`` are decided on the exact values: rounding before comparing breaks exact
ties (e.g. two ways of reaching 4/7 that round differently).
"""

from __future__ import annotations

import math
from fractions import Fraction

from rapidfuzz.distance import Levenshtein


def exact_string_distance(a: str, b: str) -> Fraction:
    """d_s: character edit distance normalised by the longer string.

    Formula: d_s(a, b) = lev(a, b) / max(|a|, |b|), lev = Levenshtein distance
    (insertion, deletion, substitution cost 1), |x| = length in characters.
    Edge case: two empty strings -> 0. Range [0, 1].
    Citation: seed 000, §4.1 ("string distance").

    Example (seed 000): d_s("base", "bases") = 1/5,
    d_s("base", "basement") = 4/8 = 1/2, d_s("base", "relational") = 9/10.
    """
    longest = max(len(a), len(b))
    if longest == 0:
        return Fraction(0)
    return Fraction(Levenshtein.distance(a, b), longest)


def string_distance(a: str, b: str) -> float:
    """:func:`exact_string_distance` as a float."""
    longest = max(len(a), len(b))
    return Levenshtein.distance(a, b) / longest if longest else 0.0


def exact_compositional_distance(a: str, b: str) -> Fraction:
    """d_c: the cheapest order-free alignment of the words of a and b.

    Formula: words are the whitespace tokens; substituting word x by y costs d_s(x, y),
    inserting or deleting a word costs 1; C = minimum-cost assignment on the square
    m x m cost matrix padded with 1s, m = max(#words(a), #words(b));
    d_c(a, b) = C / m. Computed exactly: every cost is scaled by the least common
    multiple D of the denominators, the integer assignment problem is solved
    (Hungarian algorithm on Python integers) and C = C_D / D.
    Edge case: two strings without words -> 0. Range [0, 1].
    Citation: seed 000, §4.1 ("compositional distance"); the padding rule is the
    spec's reading of the paper.

    Example (seed 000): d_c("data base", "data bases") = (0 + 1/5) / 2 = 1/10;
    d_c("relational data base", "data base") = (0 + 0 + 1) / 3 = 1/3;
    d_c("relational data base", "web site") = (9/10 + 3/4 + 1) / 3 = 53/60
    (relational/web, data/site, base deleted).
    """
    num, den = _compositional_parts(a.split(), b.split())
    return Fraction(num, den)


def _compositional_parts(a_words: list[str], b_words: list[str]) -> tuple[int, int]:
    """d_c as an unreduced (numerator, denominator) pair of integers."""
    m = max(len(a_words), len(b_words))
    if m == 0:
        return 0, 1
    if len(a_words) == 1 and len(b_words) == 1:
        x, y = a_words[0], b_words[0]
        return Levenshtein.distance(x, y), max(len(x), len(y), 1)
    pairs = [
        [(Levenshtein.distance(x, y), max(len(x), len(y), 1)) for y in b_words]
        for x in a_words
    ]
    scale = math.lcm(*(longest for row in pairs for _, longest in row)) if pairs else 1
    cost = [[scale] * m for _ in range(m)]
    for i, row in enumerate(pairs):
        for j, (lev, longest) in enumerate(row):
            cost[i][j] = lev * (scale // longest)
    if m == 2:
        best = min(cost[0][0] + cost[1][1], cost[0][1] + cost[1][0])
    else:
        best = min_assignment(cost)
    return best, scale * m


def compositional_distance(a: str, b: str) -> float:
    """:func:`exact_compositional_distance` correctly rounded to a float."""
    return float(exact_compositional_distance(a, b))


def exact_term_distance(a: str, b: str) -> Fraction:
    """d_t: the mean of the string and compositional distances.

    Formula: d_t(a, b) = (d_s(a, b) + d_c(a, b)) / 2, exact.
    Edge cases: identical strings -> 0; range [0, 1].
    Citation: seed 000, §4.1. (The paper's printed d_t examples do not follow from
    its own definitions; the spec says not to test them.)

    Example: d_t("data base", "data bases") = (1/10 + 1/10) / 2 = 1/10.
    """
    num, den = term_distance_parts(a, b)
    return Fraction(num, den)


def term_distance_parts(a: str, b: str) -> tuple[int, int]:
    """d_t as an unreduced (numerator, denominator) pair of integers (compare two
    with ``n1 * d2 < n2 * d1``; cheaper than Fractions in the search's tie checks)."""
    longest = max(len(a), len(b))
    lev = Levenshtein.distance(a, b) if longest else 0
    longest = max(longest, 1)
    c_num, c_den = _compositional_parts(a.split(), b.split())
    # (lev / L + c_num / c_den) / 2
    return lev * c_den + c_num * longest, 2 * longest * c_den


def term_distance(a: str, b: str) -> float:
    """:func:`exact_term_distance` correctly rounded to a float (for display)."""
    return float(exact_term_distance(a, b))


def min_assignment(cost: list[list[int]]) -> int:
    """Minimum total cost of a perfect assignment in a square integer matrix
    (Hungarian algorithm with potentials, O(m^3), exact on Python integers)."""
    m = len(cost)
    if m == 0:
        return 0
    inf = math.inf
    u = [0] * (m + 1)
    v = [0] * (m + 1)
    match = [0] * (m + 1)  # match[j] = row assigned to column j (1-based; 0 none)
    way = [0] * (m + 1)
    for i in range(1, m + 1):
        match[0] = i
        j0 = 0
        minv = [inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0, delta, j1 = match[j0], inf, 0
            row = cost[i0 - 1]
            for j in range(1, m + 1):
                if not used[j]:
                    cur = row[j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j], way[j] = cur, j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(m + 1):
                if used[j]:
                    u[match[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if match[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            match[j0] = match[j1]
            j0 = j1
    return sum(cost[match[j] - 1][j - 1] for j in range(1, m + 1))


def nearest_brute_force(
    outputs: list[str], gold: list[str]
) -> tuple[list[int], list[float]]:
    """For every output term: index of its nearest gold term (ties: first in gold) and
    the distance (correctly rounded), by evaluating the exact d_t on every pair.
    Slow; for tests and the benchmark baseline."""
    indices: list[int] = []
    distances: list[float] = []
    for e in outputs:
        best_i, best_d = -1, Fraction(2)
        for i, r in enumerate(gold):
            d = exact_term_distance(e, r)
            if d < best_d:
                best_i, best_d = i, d
        indices.append(best_i)
        distances.append(float(best_d) if best_i >= 0 else 1.0)
    return indices, distances
