"""Benchmark: confidence intervals, the pairwise p-value matrix, rank bands and the
Ladder for 20 BUCC-size runs (54,860 ranked pairs each, 2,884 gold pairs), as the
worker computes them after a scored run; with ``--runs 20,80,320,1000``, the
platform's statistics refresh on boards of that many runs (``platform_boards``).

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

import argparse
import json
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


PLATFORM = r"""
import json, time
import numpy as np
from django.contrib.auth import get_user_model
from evalhub.competitions.models import *
from evalhub.competitions.services.data import datasets, taskdata
from evalhub.competitions.services.runs import lifecycle, stale, submit
from evalhub.rankings.models import PairStatistics, RunStatistics
from evalhub.rankings.services import statistics
from tasks.reports import ScoreReport
from tests.paths import shared_data

task = SharedTask.objects.get(slug=TASK)
base = shared_data("bilingual_term_alignment", "wiktionary_en_de", "test")
phase = Phase.objects.create(task=task, slug=f"board-{N}", name=f"Board {N}",
                             opens_at=task.phases.first().opens_at,
                             closes_at=task.phases.first().closes_at,
                             daily_limit=10, total_limit=10)
ts = TestSet.objects.create(phase=phase, slug="test", name="Test", visibility="public")
for role, name in (("source_terms", "source_terms.txt"),
                   ("target_terms", "target_terms.txt"), ("gold", "gold.tsv")):
    datasets.store_file(test_set=ts, role=role, filename=name,
                        data=(base / name).read_bytes())
ts.refresh_from_db()
reports = [ScoreReport(**r) for r in json.load(open(REPORTS))]
tt = task.type
small = open(SMALL, "rb").read()
users = list(get_user_model().objects.filter(username__startswith="stat-")
             .order_by("pk")[:N + 2])
rng = np.random.default_rng(N)

def add_run(i, user, lead=False):
    # The run's row goes through the submit service and the run's life owner; its
    # outcome is a BUCC-size one derived from the 20 scored runs (ranks moved;
    # ``lead``: the best of them, unchanged, so it leads the board).
    sub = submit.submit_run(phase=phase, user=user, filename="run.tsv", data=small,
                            method_name=f"m{i}")
    src = reports[i % len(reports)]
    if lead:
        src = max(reports, key=lambda r: r.metrics["ap"])
    ranks = np.asarray(src.detail["gold_ranks"])
    moved = rng.random(len(ranks)) < (0 if lead else 0.05)
    ranks = np.where(moved & (ranks > 0), ranks + rng.integers(0, 500, len(ranks)), ranks)
    detail = {**src.detail, "gold_ranks": [int(r) for r in ranks]}
    ap = tt.item_statistics(ScoreReport(metrics={}, payload={}, detail=detail)).value()
    report = ScoreReport(metrics={**src.metrics, "ap": ap}, payload=src.payload,
                         detail=detail)
    token = f"bench-{i}"
    assert lifecycle.claim(sub.pk, token)
    read = stale.versions(taskdata.phase_test_sets(phase))
    assert lifecycle.finish(sub.pk, token, phase_id=phase.pk, read=read,
                            scored=[(ts, report, ())],
                            fields={"scorer_version": tt.version, "warnings": []}) == "scored"

for i, user in enumerate(users[: N - 1]):
    add_run(i, user)
out = {"runs": N}
t = time.perf_counter()
jobs = 1
while statistics.refresh(test_set_id=ts.pk) == "continued":  # past its time budget
    jobs += 1
out["full_recompute_s"] = round(time.perf_counter() - t, 2)
out["full_recompute_jobs"] = jobs
t = time.perf_counter()
assert statistics.refresh(test_set_id=ts.pk) == "refreshed"
out["refresh_nothing_new_s"] = round(time.perf_counter() - t, 2)
from evalhub.rankings.models import TestSetStatistics
from evalhub.rankings.services import charts as charts_module
drawn = []
real_draw = charts_module.draw
def counting_draw(shown):
    drawn.append(len(shown.rows))
    return real_draw(shown)
charts_module.draw = counting_draw
add_run(N - 1, users[N - 1])
t = time.perf_counter()
assert statistics.refresh(test_set_id=ts.pk) == "refreshed"
out["refresh_one_new_run_s"] = round(time.perf_counter() - t, 2)
out["refresh_one_new_run_charts_drawn"] = len(drawn)
add_run(N + 1, users[N + 1], lead=True)
drawn.clear()
t = time.perf_counter()
assert statistics.refresh(test_set_id=ts.pk) == "refreshed"
out["refresh_new_leader_s"] = round(time.perf_counter() - t, 2)
out["refresh_new_leader_charts_drawn"] = len(drawn)
charts_module.draw = real_draw
# The same after one more run, its two parts apart: the numbers (shares, pairs,
# Ladder, bands) and the interval chart the refresh draws with them.
from evalhub.rankings.models import PhaseRanking
from evalhub.rankings.services import charts, runstats
add_run(N, users[N])
ranking = PhaseRanking.for_phase(phase)
if PROFILE:
    import cProfile, io, pstats
    profile = cProfile.Profile()
    profile.enable()
t = time.perf_counter()
shares = runstats.shares(test_set=ts, ranking=ranking)
numbers = statistics.compute(test_set=ts, ranking=ranking, shares=shares)
out["numbers_one_new_run_s"] = round(time.perf_counter() - t, 2)
if PROFILE:
    profile.disable()
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(25)
    open(OUT + ".profile.txt", "w").write(text.getvalue())
t = time.perf_counter()
charts.interval_chart(test_set=ts, data=numbers)
out["interval_chart_s"] = round(time.perf_counter() - t, 2)
data = TestSetStatistics.objects.get(test_set=ts).data
out["board"] = len(data["matrix"]["runs"])
out["pairs_stored"] = PairStatistics.objects.filter(test_set=ts).count()
out["bands"] = max(data["matrix"]["bands"])
open(OUT, "w").write(json.dumps(out))
"""


def platform_boards(
    sizes: list[int], database_url: str, *, profile: bool = False
) -> list[dict[str, object]]:
    """For each size N: N teams, N - 1 scored runs on a BUCC-size test set (the
    real wiktionary_en_de test data; each run's outcome derived from one of the 20
    scored runs with 5 % of its found gold pairs moved down), then timed in one
    process through ``statistics.refresh`` (what the worker's job runs, chart
    included): the full recompute (nothing stored yet), a refresh with nothing
    new, and the refresh after the N-th run is scored."""
    import tempfile

    from stack import TASK, Stack, machine_load

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
    reports = [
        tt.score(
            tt.parse_run(perturb(run_bytes, i), "run.tsv", inputs, settings),
            gold,
            inputs,
            settings,
        )
        for i in range(N_RUNS)
    ]
    tmp = Path(tempfile.mkdtemp(prefix="evalhub-significance-"))
    (tmp / "reports.json").write_text(
        json.dumps(
            [
                {"metrics": dict(r.metrics), "payload": dict(r.payload),
                 "detail": dict(r.detail)}
                for r in reports
            ]
        )
    )  # fmt: skip
    (tmp / "small.tsv").write_bytes(b"\n".join(run_bytes.splitlines()[:20]) + b"\n")
    results = []
    with Stack(database_url=database_url) as stack:
        stack.shell(
            "from django.contrib.auth import get_user_model\n"
            "from evalhub.competitions.models import *\n"
            f"task = SharedTask.objects.get(slug={TASK!r})\n"
            f"for i in range({max(sizes) + 2}):\n"
            "    u = get_user_model().objects.create_user(f'stat-{i:05d}')\n"
            "    team = Team.objects.create(name=f'Team {i:05d}')\n"
            "    team.members.add(u)\n"
            "    Registration.objects.create(task=task, team=team, status='approved')\n",
            timeout=3600,
        )
        for n in sizes:
            out = tmp / f"out-{n}.json"
            code = (
                f"TASK = {TASK!r}\nN = {n}\nREPORTS = {str(tmp / 'reports.json')!r}\n"
                f"SMALL = {str(tmp / 'small.tsv')!r}\nOUT = {str(out)!r}\n"
                f"PROFILE = {profile!r}\n" + PLATFORM
            )
            stack.shell(code, timeout=7200)
            if profile:
                print(Path(f"{out}.profile.txt").read_text())
            result = {**json.loads(out.read_text()), "database": stack.database,
                      "machine": machine_load()}  # fmt: skip
            print(json.dumps(result), flush=True)
            results.append(result)
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--runs",
        default="",
        help="comma-separated board sizes (e.g. 20,80,320,1000): time the platform's "
        "statistics refresh on each instead of the in-process 20-run benchmark",
    )
    parser.add_argument("--database-url", default="")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="print where the numbers after one new run spend their time",
    )
    args = parser.parse_args()
    if args.runs:
        platform_boards(
            [int(v) for v in args.runs.split(",")],
            args.database_url,
            profile=args.profile,
        )
    else:
        main()
