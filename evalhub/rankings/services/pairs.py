"""The full pairwise matrix of a board, read on request (the significance page, its
exports, the overview-paper package) from the pairs ``runstats`` stores: the
refresh itself never builds the N x N matrix."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from evalhub.competitions.models import TestSet
from evalhub.rankings.models import PairStatistics, PhaseRanking
from evalhub.rankings.services import runstats
from tasks.base import JSON
from tasks.common import resampling as rs


def forget_other_keys(*, test_set: TestSet, key: str) -> None:
    """Drop the pairs of other gold or settings once the boards no longer show them."""
    PairStatistics.objects.filter(test_set=test_set).exclude(key=key).delete()


def pair_matrix(
    *, test_set: TestSet, ranking: PhaseRanking, runs: Sequence[int], key: str
) -> dict[str, list[JSON]]:
    """The full matrix (delta, paired-bootstrap and randomisation p-values; 12
    digits) over ``runs``, read from the pairs stored under ``key`` (the one the
    board's statistics were computed under); a pair not stored (a run rescored
    since, or whose items differ from the majority's) is tested from the stored
    shares."""
    index = {pk: i for i, pk in enumerate(runs)}
    size = len(runs)
    delta = np.zeros((size, size))
    p_boot = np.ones((size, size))
    p_rand = np.ones((size, size))
    seen = np.eye(size, dtype=bool)
    for a, b, d, pb, pr in _stored_pairs(test_set, key, index):
        i, j = index[a], index[b]
        delta[i, j], delta[j, i] = d, -d
        p_boot[i, j] = p_boot[j, i] = pb
        p_rand[i, j] = p_rand[j, i] = pr
        seen[i, j] = seen[j, i] = True
    if not seen.all():
        have = runstats.shares(test_set=test_set, ranking=ranking)
        for i, j in zip(*np.nonzero(~seen), strict=True):
            a, b = runs[i], runs[j]
            if i < j and a in have.arrays and b in have.arrays:
                one = rs.pair_tests(have.arrays[a], [have.arrays[b]], exact=have.exact)
                delta[i, j], delta[j, i] = one.delta[0], -one.delta[0]
                p_boot[i, j] = p_boot[j, i] = one.p_bootstrap[0]
                p_rand[i, j] = p_rand[j, i] = one.p_randomisation[0]
    return {
        "delta": _rounded(delta),
        "p_bootstrap": _rounded(p_boot),
        "p_randomisation": _rounded(p_rand),
    }


def _stored_pairs(
    test_set: TestSet, key: str, runs: Mapping[int, int]
) -> Iterable[tuple[int, int, float, float, float]]:
    """The stored pairs among ``runs`` (all of the board's: the test set's pairs
    are filtered here rather than with two long ``IN`` lists)."""
    lowest = min(runs)
    for row in (
        PairStatistics.objects.filter(test_set=test_set, key=key, run_a_id__gte=lowest)
        .values_list("run_a_id", "run_b_id", "delta", "p_bootstrap", "p_randomisation")
        .iterator(chunk_size=10_000)
    ):
        if row[0] in runs and row[1] in runs:
            yield row


def _rounded(matrix: np.ndarray) -> list[JSON]:
    return [[round(float(v), 12) for v in row] for row in matrix]
