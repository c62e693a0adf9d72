"""Benchmark: confidence intervals, the pairwise p-value matrix, rank bands and the
Ladder for 20 BUCC-size runs (54,860 ranked pairs each, 2,884 gold pairs), as the
worker computes them after a scored run.

Run: ``.venv/bin/python bench/significance.py``. The runs are ``bench/bucc.py``'s
54,860-pair run with 20 deterministic perturbations (adjacent swaps and a shuffled
block). Timed: per-item statistics from the 20 reports, 1,000-sample paired bootstrap
intervals for every run, paired bootstrap and approximate-randomisation p-values for
all 190 pairs (1,000 samples / trials each), rank bands and the Ladder (4 teams x 5
runs). Baseline in the same process: ``scipy.stats.bootstrap`` (percentile, 1,000
resamples, vectorised) for each run's interval and ``scipy.stats.permutation_test``
(paired, 1,000 resamples) for each pair (timed on the 19 pairs with run 0 and
extrapolated), on the same per-item values.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bucc import build_run  # noqa: E402

from tasks import registry  # noqa: E402
from tasks.common import resampling as rs  # noqa: E402
from tests.paths import shared_data  # noqa: E402

N_RUNS = 20


def perturb(run: bytes, seed: int) -> bytes:
    lines = run.decode("utf-8").splitlines()
    rng = np.random.default_rng(seed)
    for i in rng.choice(len(lines) - 1, size=len(lines) // 20, replace=False):
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
    start = int(rng.integers(0, len(lines) // 2))
    block = lines[start : start + 500 * seed]
    rng.shuffle(block)
    lines[start : start + len(block)] = block
    return ("\n".join(lines) + "\n").encode("utf-8")


def main() -> None:
    base = shared_data("bilingual_term_alignment", "wiktionary_en_de", "test")
    tt = registry.get("bilingual_term_alignment")
    settings = tt.parse_settings({})
    inputs = tt.parse_inputs(
        {
            "source_terms": (base / "source_terms.txt").read_bytes(),
            "target_terms": (base / "target_terms.txt").read_bytes(),
        },
        settings,
    )
    gold = tt.parse_gold({"gold": (base / "gold.tsv").read_bytes()}, inputs, settings)
    run_bytes = build_run(base)
    start = time.perf_counter()
    reports = [
        tt.score(
            tt.parse_run(perturb(run_bytes, i), "run.tsv", inputs, settings),
            gold,
            inputs,
            settings,
        )
        for i in range(N_RUNS)
    ]
    t_score = time.perf_counter() - start
    print(
        f"{N_RUNS} runs x {len(run_bytes.splitlines()):,} pairs, gold {len(gold.pairs):,}"
    )
    print(f"scoring the {N_RUNS} runs (not part of the statistics): {t_score:.2f} s")

    start = time.perf_counter()
    stats = [tt.item_statistics(r) for r in reports]
    assert all(s is not None for s in stats)
    items = [s for s in stats if s is not None]
    intervals = rs.bootstrap_intervals(items)
    t_ci = time.perf_counter() - start
    start = time.perf_counter()
    matrix = rs.pairwise(items)
    bands = rs.rank_bands(matrix.values, matrix.p_randomisation)
    for team in range(4):
        rs.ladder([(str(i), items[i]) for i in range(team, N_RUNS, 4)])
    t_matrix = time.perf_counter() - start
    total = t_ci + t_matrix
    for r, iv in zip(reports, intervals, strict=True):
        assert abs(iv.value - float(r.metrics["ap"])) < 1e-12  # type: ignore[arg-type]
    print(f"per-item statistics + {N_RUNS} bootstrap intervals: {t_ci:.2f} s")
    print(
        f"pairwise matrix ({N_RUNS * (N_RUNS - 1) // 2} pairs, bootstrap + "
        f"randomisation) + bands + Ladder: {t_matrix:.2f} s"
    )
    print(f"evalhub total: {total:.2f} s; e.g. {intervals[0].format()}, bands {bands}")

    from scipy import stats as sps

    contrib = [s.values[:, 0] for s in items]
    start = time.perf_counter()
    for c in contrib:
        sps.bootstrap(
            (c,),
            np.mean,
            n_resamples=1000,
            method="percentile",
            random_state=np.random.default_rng(0),
        )
    t_base_ci = time.perf_counter() - start
    # The 19 pairs with run 0, extrapolated to all 190 pairs (the full loop takes
    # more than a minute).
    start = time.perf_counter()
    for j in range(1, N_RUNS):
        sps.permutation_test(
            (contrib[0], contrib[j]),
            lambda x, y, axis=-1: np.mean(x, axis=axis) - np.mean(y, axis=axis),
            permutation_type="samples",
            n_resamples=1000,
            vectorized=True,
            random_state=np.random.default_rng(0),
        )
    pairs = N_RUNS * (N_RUNS - 1) // 2
    t_base_matrix = (time.perf_counter() - start) * pairs / (N_RUNS - 1)
    print(
        f"scipy baseline: intervals {t_base_ci:.2f} s, randomisation matrix only "
        f"{t_base_matrix:.2f} s (extrapolated from {N_RUNS - 1} pairs)"
    )
    print(f"ratio scipy / evalhub: {(t_base_ci + t_base_matrix) / total:.1f}x")


if __name__ == "__main__":
    main()
