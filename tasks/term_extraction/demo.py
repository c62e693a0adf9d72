"""Demo data: an invented terminology and three extractor runs, all made by code."""

from __future__ import annotations

import random

from tasks.base import Demo, DemoTestSet

_STEMS = (
    "vel",
    "mor",
    "tan",
    "quil",
    "sor",
    "bren",
    "cadr",
    "lum",
    "fex",
    "gral",
    "hov",
    "istr",
    "jad",
    "kel",
    "nox",
    "pyr",
    "rub",
    "sept",
    "trov",
    "zin",
)
_SUFFIXES = ("ase", "ine", "ator", "ite", "ometry", "osis", "al", "ic", "on", "ure")
_HEADS = (
    "valve",
    "pressure",
    "flow",
    "chamber",
    "index",
    "coupling",
    "sensor",
    "drift",
)
_NOISE = ("wop", "glim", "stuk", "drab", "yelp", "bosk", "frum", "quag", "snib", "thwa")
_LABELS = ("Specific_Term", "Common_Term", "OOD_Term", "Named_Entity")


def _word(rng: random.Random) -> str:
    return rng.choice(_STEMS) + rng.choice(_STEMS) + rng.choice(_SUFFIXES)


def _noise(rng: random.Random) -> str:
    """A word unlike the terminology (other syllables), sometimes with a head noun."""
    word = rng.choice(_NOISE) + rng.choice(_NOISE) + rng.choice(("er", "ish", "ment"))
    return word if rng.random() < 0.6 else f"{word} {rng.choice(_NOISE)}"


def _terminology(rng: random.Random, size: int) -> list[str]:
    terms: dict[str, None] = {}
    while len(terms) < size:
        shape = rng.random()
        if shape < 0.45:
            term = _word(rng)
        elif shape < 0.85:
            term = f"{_word(rng)} {rng.choice(_HEADS)}"
        else:
            term = f"{_word(rng)} {_word(rng)} {rng.choice(_HEADS)}"
        terms[term] = None
    return list(terms)


def _variant(rng: random.Random, term: str) -> str:
    """A near miss an extractor might produce: plural, truncation, word order."""
    words = term.split()
    choice = rng.random()
    if choice < 0.4:
        return term + "s"
    if choice < 0.7 and len(words) > 1:
        return " ".join(words[1:])
    if len(words) > 1:
        return " ".join(reversed(words))
    return term[:-1]


def _run(
    rng: random.Random, gold: list[str], hit: float, near: float, noise: int
) -> list[str]:
    out: list[str] = []
    for term in gold:
        roll = rng.random()
        if roll < hit:
            out.append(term)
        elif roll < hit + near:
            out.append(_variant(rng, term))
    out.extend(_noise(rng) for _ in range(noise))
    rng.shuffle(out)
    return out


def build_demo(seed: int = 0) -> Demo:
    rng = random.Random(seed)
    gold = _terminology(rng, 300)
    gold_lines = [f"{t}\t{rng.choices(_LABELS, weights=(6, 3, 1, 1))[0]}" for t in gold]
    corpus = " ".join(gold + _terminology(rng, 100)) + "\n"
    strong = _run(rng, gold, 0.75, 0.15, 40)
    fuzzy = _run(rng, gold, 0.35, 0.45, 80)
    weak = _run(rng, gold, 0.15, 0.15, 250)
    # The strong run is ranked: gold terms tend to get higher scores.
    gold_set = set(gold)
    scored = sorted(
        ((t, (0.5 if t in gold_set else 0.0) + rng.random()) for t in strong),
        key=lambda item: -item[1],
    )
    strong_bytes = "".join(f"{t}\t{s:.4f}\n" for t, s in scored).encode()
    return Demo(
        title="Invented engineering terminology",
        description=(
            "A 300-term gold list of invented technical terms (with ACTER-style labels) "
            "and three runs: a ranked strong extractor, one that finds many near "
            "variants (plural, truncated, reordered), and a noisy weak one."
        ),
        settings={"tau": 0.4, "casefold": True},
        test_sets=(
            DemoTestSet(
                name="demo",
                title="Invented engineering corpus",
                inputs={"corpus": corpus.encode()},
                gold={"gold": ("\n".join(gold_lines) + "\n").encode()},
            ),
        ),
        runs=(
            ("Team Alpha", "ranked extractor", {"demo": strong_bytes}),
            (
                "Team Beta",
                "variant-happy extractor",
                {"demo": ("\n".join(fuzzy) + "\n").encode()},
            ),
            (
                "Team Gamma",
                "noisy extractor",
                {"demo": ("\n".join(weak) + "\n").encode()},
            ),
        ),
    )
