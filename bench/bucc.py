"""Benchmark: parse + validate + all metrics of a 54,860-pair BUCC run (the longest
BUCC 2022 run), against the official scorer in the same process; then the same with
the figures' curves and the organisers' per-item detail (the whole ``score()``).

Run: ``.venv/bin/python bench/bucc.py``. The run is ``long_tail.tsv`` from the shared
wiktionary_en_de test data plus 6,360 more in-vocabulary candidate pairs chosen
deterministically. Set ``BUCC_OFFICIAL_SCORER`` to the path of the organisers'
``evaluation.py`` (github PierreZweigenbaum/bucc2022) to time it on the same files
(``-i`` setting: read, filter OOV, set measures, uninterpolated AP; its
``--interpolated`` path is timed too when the installed pandas supports it). Without
it, a straightforward pandas implementation of the same AP is the baseline.
"""

from __future__ import annotations

import importlib.util
import os
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
REPEATS = 7


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


def best_of(fn: Callable[[], object], repeats: int = REPEATS) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


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

    def ours() -> float:
        run = tt.parse_run(run_bytes, "run.tsv", inputs, settings)
        return float(tt.score(run, gold, inputs, settings).payload["ap"])  # type: ignore[arg-type]

    def ours_metrics() -> float:
        run = tt.parse_run(run_bytes, "run.tsv", inputs, settings)
        with gc_paused():
            return metrics.compute(run.pairs, gold.pairs)[0].ap

    t_metrics, ap_metrics = best_of(ours_metrics)
    t_ours, ap_ours = best_of(ours)
    print(f"run: {TARGET_PAIRS:,} pairs; gold {len(gold.pairs):,} pairs")
    print(
        f"evalhub parse+validate+all metrics: {t_metrics * 1000:.1f} ms (AP {ap_metrics:.12f})"
    )
    print(
        f"evalhub parse+validate+all metrics+curves+detail: {t_ours * 1000:.1f} ms (AP {ap_ours:.12f})"
    )

    with tempfile.TemporaryDirectory() as tmp:
        run_path = Path(tmp) / "run.tsv"
        run_path.write_bytes(run_bytes)
        official = os.environ.get("BUCC_OFFICIAL_SCORER")
        if official:
            t_base, ap_base, label = _official(Path(official), base, run_path, t_ours)
        else:
            print("BUCC_OFFICIAL_SCORER is not set: the official scorer is absent; "
                  "baseline = a straightforward pandas AP")  # fmt: skip
            t_base, ap_base = best_of(lambda: _pandas_ap(base, run_path))
            label = "pandas AP baseline"
    print(f"{label}: {t_base * 1000:.1f} ms (AP {ap_base:.12f})")
    print(
        f"ratio {label} / evalhub parse+validate+all metrics: {t_base / t_metrics:.2f}x"
    )
    print(f"ratio {label} / evalhub with curves+detail: {t_base / t_ours:.2f}x")


def _official(
    path: Path, base: Path, run_path: Path, t_ours: float
) -> tuple[float, float, str]:
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

    t, ap = best_of(official_i)
    try:

        def official_interp() -> float:
            pairs = ev.filter_oov(ev.f_read_list(str(run_path)), source, target)
            ev.set_measures(pairs, gold)
            return float(ev.average_precision_interpolated(pairs, gold)[1])

        t_i, ap_i = best_of(official_interp, 1)
        print(
            f"official evaluation.py -i --interpolated: {t_i * 1000:.1f} ms (AP_i {ap_i:.12f})"
        )
        print(f"ratio official --interpolated / evalhub: {t_i / t_ours:.1f}x")
    except ValueError as exc:
        print(f"official --interpolated path fails with this pandas: {exc}")
    return t, ap, "official evaluation.py -i (read, filter, set measures, AP)"


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
