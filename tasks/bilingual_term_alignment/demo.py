"""A small synthetic BUCC-style task built from morphemes (no external data).

English two-word terms "<root> <head>" translate to German compounds "<Root><head>"
(e.g. "heart valve" -> "herzklappe"); some heads have two German forms, so some
source terms have two translations. Distractor terms on both sides come from the
unused combinations, so no distractor has a translation in the other list.
"""

from __future__ import annotations

import random

from tasks.base import Demo, DemoTestSet

ROOTS = {
    "heart": "herz", "blood": "blut", "bone": "knochen", "lung": "lungen",
    "brain": "hirn", "skin": "haut", "nerve": "nerven", "liver": "leber",
    "kidney": "nieren", "muscle": "muskel", "eye": "augen", "ear": "ohren",
    "tooth": "zahn", "stomach": "magen", "vessel": "gefäß", "joint": "gelenk",
    "spine": "wirbelsäulen", "throat": "hals", "chest": "brust", "knee": "knie",
}  # fmt: skip
HEADS = {
    "valve": ("klappe",), "cell": ("zelle",), "disease": ("krankheit", "erkrankung"),
    "surgery": ("chirurgie", "operation"), "tissue": ("gewebe",), "wall": ("wand",),
    "tumour": ("tumor",), "failure": ("versagen", "insuffizienz"), "test": ("test",),
    "scan": ("scan",), "injury": ("verletzung",), "pain": ("schmerz", "schmerzen"),
    "infection": ("infektion", "entzündung"), "specialist": ("facharzt",),
    "transplant": ("transplantation",),
}  # fmt: skip


def _lines(items: list[str]) -> bytes:
    return "".join(f"{item}\n" for item in items).encode("utf-8")


def _translations(source: str) -> list[str]:
    root, head = source.split(" ")
    return [ROOTS[root] + h for h in HEADS[head]]


def build(seed: int = 0) -> Demo:
    rng = random.Random(seed)
    combos = [f"{r} {h}" for r in ROOTS for h in HEADS]
    rng.shuffle(combos)
    gold_sources = sorted(combos[:180])
    en_distractors = combos[180:240]
    de_distractor_sources = combos[240:]
    gold = sorted((s, t) for s in gold_sources for t in _translations(s))
    d1 = gold_sources + en_distractors
    d2 = sorted(
        {t for _, t in gold}
        | {t for s in de_distractor_sources for t in _translations(s)}
    )
    rng.shuffle(d1)
    d2_set = set(d2)

    by_root: dict[str, list[str]] = {}
    for t in d2:
        de_root = next(de for de in ROOTS.values() if t.startswith(de))
        by_root.setdefault(de_root, []).append(t)

    # Strong: knows the morpheme dictionary, ranks its guesses well, with some noise.
    strong: list[tuple[float, tuple[str, str]]] = []
    for s in d1:
        for t in _translations(s):
            if t in d2_set:
                strong.append((rng.random() * 0.6 + 0.4, (s, t)))
        wrong = [
            t for t in by_root[ROOTS[s.split(" ")[0]]] if t not in _translations(s)
        ]
        for t in rng.sample(wrong, min(2, len(wrong))):
            strong.append((rng.random() * 0.7, (s, t)))
    # Medium: knows the roots and half of the heads; guesses the other heads.
    known_heads = set(rng.sample(sorted(HEADS), len(HEADS) // 2))
    medium: list[tuple[float, tuple[str, str]]] = []
    for s in d1:
        if s.split(" ")[1] in known_heads:
            for t in _translations(s):
                if t in d2_set:
                    medium.append((rng.random() * 0.8 + 0.2, (s, t)))
        same_root = by_root[ROOTS[s.split(" ")[0]]]
        for t in rng.sample(same_root, min(2, len(same_root))):
            medium.append((rng.random() * 0.5, (s, t)))
    # Weak: random pairs.
    weak = [(rng.random(), (rng.choice(d1), rng.choice(d2))) for _ in range(600)]

    def run_bytes(scored: list[tuple[float, tuple[str, str]]]) -> bytes:
        ordered = sorted(scored, key=lambda x: (-x[0], x[1]))
        seen: set[tuple[str, str]] = set()
        out = []
        for _, pair in ordered:
            if pair not in seen:
                seen.add(pair)
                out.append(f"{pair[0]}\t{pair[1]}")
        return _lines(out)

    test_set = DemoTestSet(
        name="test",
        title="Synthetic medical terms, en-de",
        inputs={"source_terms": _lines(d1), "target_terms": _lines(d2)},
        gold={"gold": _lines([f"{s}\t{t}" for s, t in gold])},
        visibility="public",
    )
    return Demo(
        title="Demo: bilingual term alignment (synthetic en -> de medical terms)",
        description=(
            "Invented English medical terms (root + head) and their German compounds, "
            f"with distractors: {len(d1)} source terms, {len(d2)} target terms, "
            f"{len(gold)} gold pairs. Rank pairs of D1 x D2 by confidence."
        ),
        settings={"cap_policy": "reject", "cap_factor": 10.0},
        test_sets=(test_set,),
        runs=(
            ("Morpho", "dictionary", {"test": run_bytes(strong)}),
            ("Rooters", "roots only", {"test": run_bytes(medium)}),
            ("Dice", "random", {"test": run_bytes(weak)}),
        ),
    )
