"""tasks.common.resampling: bootstrap intervals, paired tests, rank bands, Ladder."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats as sps

from tasks.common import resampling as rs


def mean_stats(values, keys=None) -> rs.ItemStats:  # noqa: ANN001
    v = np.asarray(values, dtype=float)
    return rs.ItemStats(
        keys=tuple(keys or (str(i) for i in range(len(v)))),
        values=np.column_stack([v, np.ones(len(v))]),
        formula="ratio",
    )


def test_formulas_worked_examples() -> None:
    assert rs.apply_formula("ratio", [3, 4]) == 0.75
    assert rs.apply_formula("ratio", [0, 0]) == 0.0
    assert rs.apply_formula("f_measure", [1, 3, 1, 2]) == pytest.approx(0.4)
    assert rs.apply_formula("f_measure", [0, 0, 0, 0]) == 0.0
    assert rs.apply_formula("mean_of_ratios", [2, 1, 0, 0, 4, 4]) == 0.75
    assert np.isnan(rs.apply_formula("mean_of_ratios", [0, 0, 0, 0]))


def test_resample_weights_are_deterministic_multiplicities() -> None:
    w = rs.resample_weights(7, 50, seed=3)
    assert w.shape == (50, 7)
    assert (w.sum(axis=1) == 7).all()
    assert (w == rs.resample_weights(7, 50, seed=3)).all()
    assert not (w == rs.resample_weights(7, 50, seed=4)).all()


def test_constant_items_give_a_zero_width_interval() -> None:
    interval = rs.bootstrap_interval(mean_stats([1.0] * 20))
    assert (interval.low, interval.value, interval.high) == (1.0, 1.0, 1.0)
    assert interval.format() == "1.0000 ± 0.000"


def test_two_items_interval_is_hand_computable() -> None:
    # Items 0 and 1: a resample mean is 0 (prob 1/4), 1/2 (1/2) or 1 (1/4), so the
    # 2.5 % and 97.5 % quantiles of 1,000 resamples are 0 and 1, and about a quarter
    # of the resamples give each extreme.
    stats = mean_stats([0.0, 1.0])
    interval = rs.bootstrap_interval(stats, samples=1000, seed=0)
    assert (interval.low, interval.value, interval.high) == (0.0, 0.5, 1.0)
    boot = stats.on(rs.resample_weights(2, 1000, 0))
    assert set(np.unique(boot)) == {0.0, 0.5, 1.0}
    assert abs(np.mean(boot == 0.0) - 0.25) < 0.05
    assert abs(np.mean(boot == 0.5) - 0.5) < 0.05


def test_same_seed_same_numbers_and_shared_resamples() -> None:
    rng = np.random.default_rng(1)
    a, b = mean_stats(rng.random(300)), mean_stats(rng.random(300))
    assert rs.bootstrap_intervals([a, b]) == rs.bootstrap_intervals([a, b])
    # A run's interval does not depend on the other runs on the test set.
    assert rs.bootstrap_intervals([a, b])[0] == rs.bootstrap_interval(a)


@pytest.mark.parametrize("formula", ["ratio", "f_measure"])
def test_interval_matches_scipy_bootstrap(formula: str) -> None:
    rng = np.random.default_rng(7)
    n = 400
    if formula == "ratio":
        values = np.column_stack([rng.random(n) ** 2, np.ones(n)])
    else:
        found = (rng.random(n) < 0.6).astype(float)
        values = np.column_stack([found, rng.integers(1, 3, n), found, np.ones(n)])
    stats = rs.ItemStats(tuple(map(str, range(n))), values, formula)  # type: ignore[arg-type]

    def statistic(idx: np.ndarray, axis: int = -1) -> np.ndarray:
        sums = values[idx.astype(int)].sum(axis=-2)
        return rs.apply_formula(formula, sums)  # type: ignore[arg-type]

    ref = sps.bootstrap(
        (np.arange(n),),
        statistic,
        n_resamples=20_000,
        method="percentile",
        confidence_level=0.95,
        random_state=np.random.default_rng(0),
        vectorized=True,
    ).confidence_interval
    ours = rs.bootstrap_interval(stats, samples=20_000, seed=0)
    width = ref.high - ref.low
    assert ours.low == pytest.approx(ref.low, abs=0.03 * width)
    assert ours.high == pytest.approx(ref.high, abs=0.03 * width)


def test_randomisation_exact_known_answer() -> None:
    # A scores 1 on all 10 items, B 0: of the 2^10 swaps only "none" and "all"
    # give |d'| >= 1, so p = 2 / 1024 exactly.
    a, b = mean_stats([1.0] * 10), mean_stats([0.0] * 10)
    result = rs.pairwise([a, b], trials=2048)
    assert result.exact
    assert result.p_randomisation[0, 1] == 2 / 1024
    assert result.p_randomisation[1, 0] == 2 / 1024


def test_randomisation_equals_scipy_exact_permutation_test() -> None:
    rng = np.random.default_rng(3)
    x, y = rng.random(12), rng.random(12) + 0.15
    result = rs.pairwise([mean_stats(x), mean_stats(y)], trials=4096)
    ref = sps.permutation_test(
        (x, y),
        lambda u, v, axis=-1: np.mean(u, axis=axis) - np.mean(v, axis=axis),
        permutation_type="samples",
        alternative="two-sided",
        n_resamples=np.inf,
    )
    assert result.exact
    assert result.p_randomisation[0, 1] == pytest.approx(ref.pvalue, abs=1e-12)


def test_randomisation_sampled_is_close_to_exact() -> None:
    rng = np.random.default_rng(5)
    x, y = rng.random(16), rng.random(16) + 0.2
    exact = rs.pairwise([mean_stats(x), mean_stats(y)], trials=2**16)
    sampled = rs.pairwise([mean_stats(x), mean_stats(y)], trials=5000, seed=1)
    assert exact.exact and not sampled.exact
    assert sampled.p_randomisation[0, 1] == pytest.approx(
        exact.p_randomisation[0, 1], abs=0.02
    )


def test_paired_bootstrap_p_values() -> None:
    rng = np.random.default_rng(2)
    base = rng.random(500)
    same = rs.compare(mean_stats(base), mean_stats(base))
    assert same == (0.0, 1.0, 1.0)
    better = rs.compare(mean_stats(base + 0.1), mean_stats(base))
    assert better[0] == pytest.approx(0.1)
    assert better[1] == 1 / 1001 and better[2] == 1 / 1001
    noise = rng.normal(0, 0.3, 500)
    close = rs.compare(mean_stats(base + noise), mean_stats(base))
    assert close[1] > 0.05 and close[2] > 0.05


def test_pairwise_matrix_is_symmetric_and_matches_compare() -> None:
    rng = np.random.default_rng(4)
    runs = [mean_stats(rng.random(200) + s) for s in (0.0, 0.02, 0.3)]
    result = rs.pairwise(runs)
    assert (result.p_bootstrap == result.p_bootstrap.T).all()
    assert (result.p_randomisation == result.p_randomisation.T).all()
    for i, j in itertools.combinations(range(3), 2):
        d, pb, pr = rs.compare(runs[i], runs[j])
        assert d == pytest.approx(result.delta[i, j])
        assert pb == pytest.approx(result.p_bootstrap[i, j])


def test_unaligned_runs_are_refused() -> None:
    with pytest.raises(ValueError, match="same gold"):
        rs.pairwise([mean_stats([1, 0]), mean_stats([1, 0], keys=["x", "y"])])


def test_rank_bands() -> None:
    p = np.array([[1, 0.4, 0.01], [0.4, 1, 0.02], [0.01, 0.02, 1]])
    assert rs.rank_bands([0.9, 0.89, 0.5], p) == [1, 1, 2]
    assert rs.rank_bands([0.5, 0.89, 0.9], p[::-1, ::-1]) == [2, 1, 1]
    # Lower is better: the lowest value leads.
    assert rs.rank_bands([0.9, 0.89, 0.5], p, higher_is_better=False) == [2, 2, 1]
    assert rs.rank_bands([0.9, 0.89, 0.5], np.ones((3, 3))) == [1, 1, 1]


def test_losses_of_a_mean_are_minus_the_centred_items() -> None:
    v = np.array([0.2, 0.5, 0.9])
    assert mean_stats(v).losses() == pytest.approx(-(v - v.mean()), abs=1e-6)


def _noisy_runs(rng, n: int, resubmissions: int, flips: int):  # noqa: ANN001, ANN202
    truth = rng.random(n) < 0.5
    base = (rng.random(n) < 0.7) == truth  # 70 % of items right
    runs = [("first", mean_stats(base.astype(float)))]
    for k in range(resubmissions):
        # A re-submission: the same system with a few random items flipped.
        noisy = base.copy()
        flip = rng.choice(n, flips, replace=False)
        noisy[flip] = ~noisy[flip]
        runs.append((f"noisy{k}", mean_stats(noisy.astype(float))))
    return base, runs


def test_ladder_ignores_noisy_resubmissions() -> None:
    rng = np.random.default_rng(11)
    base, runs = _noisy_runs(rng, 2000, 30, 20)
    naive_best = max(s.value() for _, s in runs)
    assert naive_best > runs[0][1].value()  # a plain leaderboard would climb
    # A margin of 3 standard errors: a one-sided false release has probability
    # ~0.0013 per re-submission.
    steps = rs.ladder(runs, margin=3.0)
    assert [s.shown for s in steps] == ["first"] * len(steps)
    assert [s.released for s in steps] == [True] + [False] * 30
    # A genuinely better run moves the public score.
    better = base.copy()
    better[np.flatnonzero(~base)[:150]] = True
    steps = rs.ladder([*runs, ("better", mean_stats(better.astype(float)))])
    assert steps[-1].released and steps[-1].shown == "better"


def test_parameter_free_ladder_climbs_much_less_than_the_plain_best() -> None:
    rng = np.random.default_rng(12)
    _, runs = _noisy_runs(rng, 2000, 60, 20)
    first = runs[0][1].value()
    steps = rs.ladder(runs)  # one standard error (Blum & Hardt)
    released = sum(s.released for s in steps[1:])
    shown = next(s for s in steps if s.run == steps[-1].shown).value
    naive_gain = max(s.value() for _, s in runs) - first
    # At one standard error a noisy copy is released with probability ~0.16 (the
    # paper's trade-off), and each release raises the bar for the next one.
    assert released <= 15
    assert shown - first < naive_gain


def test_ladder_threshold_is_one_standard_error() -> None:
    a = np.array([1.0, 0, 1, 1, 0, 1, 0, 1])
    b = np.array([1.0, 1, 1, 1, 0, 1, 0, 1])
    steps = rs.ladder([("a", mean_stats(a)), ("b", mean_stats(b))])
    assert steps[1].threshold == pytest.approx(np.std(b - a, ddof=1) / np.sqrt(8))
    # gain 1/8 = 0.125 < threshold 0.125 / 1 ... computed: sd = 0.3536 -> 0.125
    assert steps[1].released is (0.125 > steps[1].threshold)


def test_lower_is_better_ladder() -> None:
    a = mean_stats([0.5] * 50 + [0.4] * 50)
    b = mean_stats([0.1] * 50 + [0.2] * 50)
    steps = rs.ladder([("a", a), ("b", b)], higher_is_better=False)
    assert steps[1].released
    steps = rs.ladder([("b", b), ("a", a)], higher_is_better=False)
    assert not steps[1].released


def test_resamples_do_not_depend_on_the_block_size(monkeypatch) -> None:  # noqa: ANN001
    rng = np.random.default_rng(9)
    runs = [mean_stats(rng.random(50)) for _ in range(3)]
    whole = rs.resample_weights(50, 700, seed=2)
    intervals = rs.bootstrap_intervals(runs, samples=700, seed=2)
    matrix = rs.pairwise(runs, samples=700, trials=700, seed=2)
    monkeypatch.setattr(rs, "CHUNK", 7)
    assert (rs.resample_weights(50, 700, seed=2) == whole).all()
    assert rs.bootstrap_intervals(runs, samples=700, seed=2) == intervals
    again = rs.pairwise(runs, samples=700, trials=700, seed=2)
    assert (again.p_bootstrap == matrix.p_bootstrap).all()
    assert (again.p_randomisation == matrix.p_randomisation).all()


@pytest.mark.parametrize("n", [6, 300])  # exact randomisation, then sampled swaps
def test_a_pair_does_not_depend_on_the_runs_computed_with_it(n: int) -> None:
    """The platform stores each run's share and each pair once (a new run is tested
    against the stored ones): every number equals the full matrix's, bit for bit."""
    rng = np.random.default_rng(11)
    stats = [mean_stats(rng.random(n) ** (1 + i % 3)) for i in range(6)]
    full = rs.pairwise(stats, samples=500, trials=500, seed=4)
    alone = [rs.run_arrays([s], samples=500, trials=500, seed=4)[0] for s in stats]
    together = rs.run_arrays(stats, samples=500, trials=500, seed=4)
    for a, b in zip(alone, together, strict=True):
        assert (a.boot == b.boot).all() and (a.swaps == b.swaps).all()
    exact = rs.exact_randomisation(n, 500)
    assert full.exact == exact
    for i in range(len(stats)):
        for j in range(len(stats)):
            if i == j:
                continue
            one = rs.pair_tests(alone[i], [alone[j]], exact=exact)
            assert one.delta[0] == full.delta[i, j]
            assert one.p_bootstrap[0] == full.p_bootstrap[i, j]
            assert one.p_randomisation[0] == full.p_randomisation[i, j]
        others = [alone[j] for j in range(len(stats)) if j != i]
        row = rs.pair_tests(alone[i], others, exact=exact)
        mask = np.arange(len(stats)) != i
        assert (row.p_randomisation == full.p_randomisation[i][mask]).all()
    for s, a in zip(stats, alone, strict=True):
        interval = rs.interval_of(a, samples=500, seed=4, confidence=0.95)
        assert interval == rs.bootstrap_interval(s, samples=500, seed=4)


def test_ladder_of_stored_losses_is_the_ladder() -> None:
    rng = np.random.default_rng(2)
    runs = [(str(i), mean_stats(rng.random(200) + 0.02 * i)) for i in range(8)]
    stored = [rs.LadderRun(name, s.value(), s.losses()) for name, s in runs]
    assert rs.ladder_of(stored, margin=0.5) == rs.ladder(runs, margin=0.5)
