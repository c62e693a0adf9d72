"""Benchmark: TermoMeter's whole tau curve on real ACTER terms.

Run: ``.venv/bin/python bench/term_extraction.py``

Case 1 is the paper's large experiment size: 4,200 output terms against 1,988 gold
terms (about 8.3e6 term distances). The baseline is the straightforward definition
(every pair, a Python loop, one scipy assignment per pair:
``distance.nearest_brute_force``), timed in the same process on a subsample of the
output terms and extrapolated linearly (it is linear in the number of output terms).
Case 2 is 20,000 x 10,000, then a size sweep to show how time grows.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tasks.term_extraction.distance import nearest_brute_force  # noqa: E402
from tasks.term_extraction.measures import termometer_curve  # noqa: E402
from tasks.term_extraction.nearest import nearest_gold  # noqa: E402
from tests.paths import shared_data  # noqa: E402

BASELINE_SAMPLE = 60


def acter_terms(languages: tuple[str, ...]) -> list[str]:
    """Distinct ACTER terms (with named entities) of the given languages, all domains."""
    terms: dict[str, None] = {}
    for lang in languages:
        for domain in ("htfl", "corp", "wind", "equi"):
            path = shared_data(
                "term_extraction",
                "acter",
                lang,
                domain,
                "annotated",
                "annotations",
                "unique_annotation_lists",
                f"{domain}_{lang}_terms_nes.tsv",
            )
            for line in path.read_text(encoding="utf-8").splitlines():
                term = " ".join(line.split("\t")[0].split())
                if term:
                    terms[term] = None
    return list(terms)


def variant(rng: random.Random, term: str) -> str:
    words = term.split()
    roll = rng.random()
    if roll < 0.3:
        return term + "s"
    if roll < 0.5 and len(words) > 1:
        return " ".join(words[1:])
    if roll < 0.7 and len(words) > 1:
        return " ".join(reversed(words))
    if roll < 0.85:
        return (
            term.replace(" ", "-", 1)
            if len(words) > 1
            else term[:-1]
            if len(term) > 3
            else term + "e"
        )
    return term.upper()


def make_case(
    pool: list[str], n_out: int, n_gold: int, seed: int
) -> tuple[list[str], list[str]]:
    """Gold = n_gold real terms; output = about 40 % gold terms, 30 % variants of gold
    terms, 30 % other real terms (wrong or unlisted), all distinct."""
    rng = random.Random(seed)
    shuffled = pool[:]
    rng.shuffle(shuffled)
    gold, rest = shuffled[:n_gold], shuffled[n_gold:]
    out: dict[str, None] = {}
    for term in rng.sample(gold, int(0.4 * n_out)):
        out[term] = None
    while len(out) < 0.7 * n_out:
        out[variant(rng, rng.choice(gold))] = None
    rest_iter = iter(rest)
    while len(out) < n_out:
        try:
            out[next(rest_iter)] = None
        except StopIteration:
            out[variant(rng, rng.choice(gold)) + " x"] = None
    return list(out)[:n_out], gold


def fast_curve(outputs: list[str], gold: list[str]) -> tuple[float, int]:
    start = time.perf_counter()
    nn = nearest_gold(outputs, gold)
    termometer_curve(nn.index, nn.distance, len(gold), within=nn.within)
    return time.perf_counter() - start, nn.n_exact


def main() -> None:
    en = acter_terms(("en",))
    outputs, gold = make_case(en, 4200, 1988, seed=1)
    print(f"case 1: {len(outputs):,} output x {len(gold):,} gold terms (ACTER en)")
    fast, n_exact = fast_curve(outputs, gold)
    print(
        f"  ours: whole tau curve in {fast:.2f} s (d_t evaluated beyond the bounds for {n_exact:,} of {len(outputs) * len(gold):,} pairs)"
    )
    sample = random.Random(2).sample(outputs, BASELINE_SAMPLE)
    start = time.perf_counter()
    nearest_brute_force(sample, gold)
    base_sample = time.perf_counter() - start
    base = base_sample * len(outputs) / BASELINE_SAMPLE
    print(
        f"  baseline (every pair, Python loop, scipy per pair): {base_sample:.1f} s on "
        f"{BASELINE_SAMPLE} output terms, extrapolated to {base:.0f} s for all {len(outputs):,}"
    )
    print(f"  ratio baseline / ours: {base / fast:.0f}x")

    check_idx = [outputs.index(t) for t in sample[:20]]
    b_idx, b_d = nearest_brute_force(sample[:20], gold)
    nn = nearest_gold(outputs, gold)
    same = (
        list(nn.index[check_idx]) == b_idx
        and [float(nn.exact_distance(i)) for i in check_idx] == b_d
    )
    print(f"  fast == brute force on 20 sampled output terms: {same}")

    pool = acter_terms(("en", "fr", "nl"))
    print(f"\nsize sweep (ACTER en+fr+nl pool of {len(pool):,} terms):")
    previous: tuple[float, int] | None = None
    for n_out, n_gold in (
        (1050, 497),
        (2100, 994),
        (4200, 1988),
        (8400, 3976),
        (20000, 10000),
    ):
        outputs, gold = make_case(pool, n_out, n_gold, seed=3)
        seconds, _ = fast_curve(outputs, gold)
        pairs = n_out * n_gold
        growth = ""
        if previous:
            growth = f" (time x{seconds / previous[0]:.1f} for pairs x{pairs / previous[1]:.1f})"
        print(f"  {n_out:>6,} x {n_gold:>6,}: {seconds:6.2f} s{growth}")
        previous = (seconds, pairs)


if __name__ == "__main__":
    main()
