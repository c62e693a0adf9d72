"""Benchmark: parse + validate + all metrics of a 54,860-pair BUCC run (the longest
BUCC 2022 run), against the official scorer in the same process; the same run with one
pair outside the term lists; then the same with the figures' curves and the
organisers' per-item detail (the whole ``score()``). Each function runs once per round,
in turn, for ``ROUNDS`` rounds; best and median are printed, and the ratios.

Run: ``.venv/bin/python bench/bucc.py``. The run is ``long_tail.tsv`` from the shared
wiktionary_en_de test data plus 6,360 more in-vocabulary candidate pairs chosen
deterministically. Set ``BUCC_OFFICIAL_SCORER`` to the path of the organisers'
``evaluation.py`` (github PierreZweigenbaum/bucc2022) to time it on the same files
(``-i`` setting: read, filter OOV, set measures, uninterpolated AP, what it does for
every run file; and without its set measures; its ``--interpolated`` AP is timed once
when the installed pandas supports it). Without it, a straightforward pandas
implementation of the same AP is the baseline. Both sides read the run from a file.
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tasks import registry  # noqa: E402
from tasks.bilingual_term_alignment import metrics  # noqa: E402
from tasks.common.gcpause import gc_paused  # noqa: E402
from tests.paths import shared_data  # noqa: E402

TARGET_PAIRS = 54_860
ROUNDS = 21


def build_run(base: Path) -> bytes:
    lines = (base / "runs" / "long_tail.tsv").read_text("utf-8").splitlines()
    seen = set(lines)
    sources = sorted((base / "source_terms.txt").read_text("utf-8").split())
    targets = sorted((base / "target_terms.txt").read_text("utf-8").split())
    i = 0
    while len(lines) < TARGET_PAIRS:
        pair = f"{sources[i % len(sources)]}\t{targets[(i * 7919) % len(targets)]}"
        i += 1
        if pair not in seen:
            seen.add(pair)
            lines.append(pair)
    return ("\n".join(lines) + "\n").encode("utf-8")


def interleaved(
    fns: dict[str, Callable[[], object]], rounds: int = ROUNDS
) -> dict[str, tuple[float, float, object]]:
    """Each function once per round, in turn, so that a slower spell of the machine
    falls on all of them: (best, median, last result) in seconds."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    results: dict[str, object] = {}
    for _ in range(rounds):
        for name, fn in fns.items():
            start = time.perf_counter()
            results[name] = fn()
            times[name].append(time.perf_counter() - start)
    return {
        name: (min(ts), statistics.median(ts), results[name])
        for name, ts in times.items()
    }


def main() -> None:
    base = shared_data("bilingual_term_alignment", "wiktionary_en_de", "test")
    run_bytes = build_run(base)
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
    with tempfile.TemporaryDirectory() as tmp:
        run_path = Path(tmp) / "run.tsv"
        run_path.write_bytes(run_bytes)
        # the same run with one pair outside the term lists: the text path
        messy_path = Path(tmp) / "messy.tsv"
        messy_path.write_bytes(run_bytes + b"unknown\tpair\n")

        def metrics_of(path: Path) -> Callable[[], float]:
            def ours() -> float:
                run = tt.parse_run(path.read_bytes(), "run.tsv", inputs, settings)
                with gc_paused():
                    return metrics.compute(run, gold)[0].ap

            return ours

        def ours_all() -> float:
            run = tt.parse_run(run_path.read_bytes(), "run.tsv", inputs, settings)
            return float(tt.score(run, gold, inputs, settings).payload["ap"])  # type: ignore[arg-type]

        fns: dict[str, Callable[[], object]] = {
            "evalhub parse+validate+all metrics": metrics_of(run_path),
            "the same, a run with one OOV pair": metrics_of(messy_path),
            "evalhub parse+validate+all metrics+curves+detail": ours_all,
        }
        official = os.environ.get("BUCC_OFFICIAL_SCORER")
        if official:
            fns.update(_official(Path(official), base, run_path))
        else:
            print("BUCC_OFFICIAL_SCORER is not set: the official scorer is absent; "
                  "baseline = a straightforward pandas AP")  # fmt: skip
            fns["pandas AP baseline"] = lambda: _pandas_ap(base, run_path)
        timed = interleaved(fns)
    print(f"run: {TARGET_PAIRS:,} pairs; gold {len(gold.pairs):,} pairs; "
          f"{ROUNDS} interleaved rounds, best and median")  # fmt: skip
    for name, (best, median, result) in timed.items():
        print(f"{name}: {best * 1000:.1f} ms, median {median * 1000:.1f} ms "
              f"(AP {float(result):.12f})")  # type: ignore[arg-type]  # fmt: skip
    ours = timed["evalhub parse+validate+all metrics"]
    for name, (best, median, _) in timed.items():
        if name.startswith(("official", "pandas")):
            print(f"ratio {name} / evalhub parse+validate+all metrics: "
                  f"{best / ours[0]:.2f}x best, {median / ours[1]:.2f}x median")  # fmt: skip


def _official(
    path: Path, base: Path, run_path: Path
) -> dict[str, Callable[[], object]]:
    spec = importlib.util.spec_from_file_location("bucc_official_evaluation", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot import {path}")
    ev = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ev)
    gold = set(ev.f_read_list(str(base / "gold.tsv")))
    source = set(ev.f_read_list(str(base / "source_terms.txt")))
    target = set(ev.f_read_list(str(base / "target_terms.txt")))

    def official_i() -> float:
        pairs = ev.filter_oov(ev.f_read_list(str(run_path)), source, target)
        ev.set_measures(pairs, gold)
        return float(ev.average_precision_uninterpolated(pairs, gold))

    def official_ap_only() -> float:
        pairs = ev.filter_oov(ev.f_read_list(str(run_path)), source, target)
        return float(ev.average_precision_uninterpolated(pairs, gold))

    try:
        pairs = ev.filter_oov(ev.f_read_list(str(run_path)), source, target)
        start = time.perf_counter()
        ap_i = ev.average_precision_interpolated(pairs, gold)[1]
        t_i = time.perf_counter() - start
        print(
            f"official --interpolated AP alone: {t_i * 1000:.1f} ms (AP_i {ap_i:.12f})"
        )
    except ValueError as exc:
        print(f"official --interpolated path fails with this pandas: {exc}")
    return {
        "official evaluation.py -i (read, filter, set measures, AP)": official_i,
        "official read, filter and AP alone (no set measures)": official_ap_only,
    }


def _pandas_ap(base: Path, run_path: Path) -> float:
    import pandas as pd

    def read(path: Path, names: list[str]) -> pd.DataFrame:
        return pd.read_csv(path, sep="\t", header=None, names=names, quoting=3,
                           dtype=str, keep_default_na=False)  # fmt: skip

    run = read(run_path, ["s", "t"])
    gold = read(base / "gold.tsv", ["s", "t"]).drop_duplicates()
    d1 = set(read(base / "source_terms.txt", ["s"])["s"])
    d2 = set(read(base / "target_terms.txt", ["t"])["t"])
    run = run[run["s"].isin(d1) & run["t"].isin(d2)].drop_duplicates()
    gold["rel"] = True
    rel = run.merge(gold, on=["s", "t"], how="left")["rel"].fillna(False).astype(bool)
    hits = rel.cumsum()
    ranks = pd.Series(range(1, len(rel) + 1))
    return float((hits / ranks)[rel.to_numpy()].sum() / len(gold))


if __name__ == "__main__":
    main()
