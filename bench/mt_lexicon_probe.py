"""Benchmark: building a probe set and scoring many systems on it (Volk 1997).

Run: ``.venv/bin/python bench/mt_lexicon_probe.py``

1. Probe-set build on the real Wiktionary de-en POS splits with wordfreq (900 probes).
2. Scoring: the paper's 900 probes, translations of N invented systems (real German
   references, copied source words, other words), system 1 fully judged and its
   judgements reused through the judgement memory for the others. Ours =
   ``MtLexiconProbe.score_judged`` per system. Baseline, timed in the same process =
   the straightforward definition: tokens re-derived for every comparison, the
   "translation list" as a Python list scanned per item, and each table cell
   recounted by scanning all items (9 cells x 3 measures).
"""

from __future__ import annotations

import random
import re
import sys
import time
import unicodedata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tasks.mt_lexicon_probe.annotation import memory_from_judgements  # noqa: E402
from tasks.mt_lexicon_probe.builder import (  # noqa: E402
    BuildConfig,
    build_probe_set,
    read_pairs,
    wordfreq_zipf,
)
from tasks.mt_lexicon_probe.probes import FreqClass, Pos, Probe, Run  # noqa: E402
from tasks.mt_lexicon_probe.tags import Tag  # noqa: E402
from tasks.mt_lexicon_probe.task import Gold, MtLexiconProbe, MtLexiconProbeSettings  # noqa: E402
from tests.paths import shared_data  # noqa: E402

SPLITS = {Pos.ADJ: "Adjective", Pos.NOUN: "Noun", Pos.VERB: "Verb"}
TEMPLATE = {
    Pos.ADJ: "Es ist {}.",
    Pos.NOUN: "Ein {} ist gut.",
    Pos.VERB: "Wir müssen {}.",
}


def build() -> tuple[tuple[Probe, ...], float]:
    root = shared_data("mt_lexical_coverage", "wiktionary_bli_de_en")
    start = time.perf_counter()
    pairs = {
        pos: [
            pair
            for split in ("train", "test")
            for pair in read_pairs(
                (root / f"de-en.{split}.{name}").read_bytes(),
                name,
                columns=("de", "en"),
                source="en",
            )
        ]
        for pos, name in SPLITS.items()
    }
    result = build_probe_set(pairs, BuildConfig(seed=1), frequency=wordfreq_zipf("en"))
    return result.probes.probes, time.perf_counter() - start


def systems(probes: tuple[Probe, ...], n: int) -> list[Run]:
    rng = random.Random(7)
    runs = []
    for s in range(n):
        quality = 0.5 + 0.4 * s / max(n - 1, 1)
        lines = []
        for p in probes:
            roll = rng.random()
            if roll < quality:
                word = p.references[0]
            elif roll < quality + 0.15:
                word = p.word
            else:
                word = rng.choice(probes).references[-1]
            lines.append(TEMPLATE[p.pos].format(word))
        runs.append(Run(tuple(lines)))
    return runs


def ours(probes, runs, judgements) -> list[float | None]:
    tt = MtLexiconProbe()
    from tasks.mt_lexicon_probe.probes import ProbeSet

    inputs = ProbeSet(tuple(probes)).without_references()
    gold = Gold({p.id: p.references for p in probes})
    memory = memory_from_judgements(probes, {"s0": runs[0]}, {"s0": judgements})
    settings = MtLexiconProbeSettings()
    out = []
    for i, run in enumerate(runs):
        report = tt.score_judged(
            run, gold, inputs, settings, judgements if i == 0 else {}, memory=memory
        )
        out.append(report.metrics["correct_low_mean"])
    return out


def _joined(text: str) -> str:
    """Tokens as in the spec (whole tokens, case ignored), re-derived per call."""
    folded = unicodedata.normalize("NFC", text).casefold()
    return " ".join(re.findall(r"\w+(?:[-'\u2019]\w+)*", folded))


def baseline(probes, runs, judgements) -> list[float | None]:
    translation_list = [
        (p.id, runs[0].translations[i], judgements[p.id]) for i, p in enumerate(probes)
    ]
    out = []
    for s, run in enumerate(runs):
        tags: list[Tag | None] = []
        for i, p in enumerate(probes):
            text = run.translations[i]
            tag = judgements[p.id] if s == 0 else None
            if tag is None:
                for pid, t, jt in translation_list:
                    if pid == p.id and _joined(t) == _joined(text):
                        tag = jt
                        break
            if tag is None and f" {_joined(p.word)} " in f" {_joined(text)} ":
                tag = Tag.UNKNOWN
            if tag is None:
                for ref in p.references:
                    if f" {_joined(ref)} " in f" {_joined(text)} ":
                        tag = Tag.CORRECT
                        break
            tags.append(tag)
        means = []
        for measure_bad in (
            {Tag.UNKNOWN},
            {Tag.UNKNOWN, Tag.WRONG, Tag.MISSING},
            {Tag.UNKNOWN, Tag.WRONG, Tag.MISSING, Tag.WRONG_FORM},
        ):
            for fc in FreqClass:
                shares = []
                for pos in Pos:
                    cell = [
                        t
                        for p, t in zip(probes, tags, strict=True)
                        if p.pos is pos and p.freq_class is fc and t is not None
                    ]
                    if cell:
                        shares.append(
                            sum(1 for t in cell if t not in measure_bad) / len(cell)
                        )
                means.append(sum(shares) / len(shares) if shares else None)
        out.append(means[5])  # correct, low
    return out


def main() -> None:
    probes, build_time = build()
    print(
        f"build: {len(probes)} probes from the real lexicon + wordfreq in {build_time:.2f} s"
    )
    rng = random.Random(3)
    for n in (6, 60):
        runs = systems(probes, n)
        judgements = {p.id: rng.choice(list(Tag)) for p in probes}
        t0 = time.perf_counter()
        a = ours(probes, runs, judgements)
        t1 = time.perf_counter()
        b = baseline(probes, runs, judgements)
        t2 = time.perf_counter()
        same = all(
            x is None and y is None or abs(x - y) < 1e-12
            for x, y in zip(a, b, strict=True)
        )
        print(
            f"score {n} systems x {len(probes)} probes: ours {t1 - t0:.3f} s, "
            f"baseline {t2 - t1:.3f} s, ratio {(t2 - t1) / (t1 - t0):.1f}x, same numbers: {same}"
        )


if __name__ == "__main__":
    main()
