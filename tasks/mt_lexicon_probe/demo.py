"""A small project-written probe set (27 English probes, en->de) and three invented
systems' translations: wide lexicon, small lexicon (copies unknown words), and a
segmenting system (compound-splitting guesses awaiting annotation)."""

from __future__ import annotations

import random

from tasks.base import Demo, DemoTestSet
from tasks.mt_lexicon_probe.builder import DEFAULT_TEMPLATES
from tasks.mt_lexicon_probe.probes import (
    FreqClass,
    Pos,
    Probe,
    probes_to_tsv,
    references_to_tsv,
)

# word, German reference (as a system would print it), determiner for nouns,
# a segmenting system's guess
_WORDS: dict[tuple[Pos, FreqClass], tuple[tuple[str, str, str, str], ...]] = {
    (Pos.ADJ, FreqClass.HIGH): (
        ("new", "neu", "", "neu"),
        ("good", "gut", "", "gut"),
        ("small", "klein", "", "klein"),
    ),
    (Pos.ADJ, FreqClass.MEDIUM): (
        ("brittle", "spröde", "", "brüchig"),
        ("frugal", "sparsam", "", "frugal"),
        ("gloomy", "düster", "", "düster"),
    ),
    (Pos.ADJ, FreqClass.LOW): (
        ("weaponless", "waffenlos", "", "Waffe-weniger"),
        ("thievish", "diebisch", "", "Dieb-isch"),
        ("tearless", "tränenlos", "", "Träne-weniger"),
    ),
    (Pos.NOUN, FreqClass.HIGH): (
        ("time", "Zeit", "Die", "Zeit"),
        ("house", "Haus", "Das", "Haus"),
        ("water", "Wasser", "Das", "Wasser"),
    ),
    (Pos.NOUN, FreqClass.MEDIUM): (
        ("pitchfork", "Heugabel", "Die", "Pech-Gabel"),
        ("lantern", "Laterne", "Die", "Laterne"),
        ("shovel", "Schaufel", "Die", "Schaufel"),
    ),
    (Pos.NOUN, FreqClass.LOW): (
        ("waterbird", "Wasservogel", "Der", "Wasser-Vogel"),
        ("vestryman", "Kirchenvorsteher", "Der", "Sakristei-Mann"),
        ("wristband", "Armband", "Das", "Handgelenkband"),
    ),
    (Pos.VERB, FreqClass.HIGH): (
        ("go", "gehen", "", "gehen"),
        ("see", "sehen", "", "sehen"),
        ("work", "arbeiten", "", "arbeiten"),
    ),
    (Pos.VERB, FreqClass.MEDIUM): (
        ("knit", "stricken", "", "stricken"),
        ("whisper", "flüstern", "", "Flüstern"),
        ("polish", "polieren", "", "polnisch"),
    ),
    (Pos.VERB, FreqClass.LOW): (
        ("digitise", "digitalisieren", "", "digitalisieren"),
        ("outsmart", "überlisten", "", "aus-klug"),
        ("keyboard", "tippen", "", "Tastatur"),
    ),
}


def demo_probes() -> tuple[Probe, ...]:
    en = DEFAULT_TEMPLATES["en"]
    probes = []
    for (pos, fc), words in _WORDS.items():
        for i, (word, ref, _, _) in enumerate(words, start=1):
            probes.append(
                Probe(
                    f"{pos.value}-{fc.value}-{i:03d}",
                    word,
                    pos,
                    fc,
                    en.sentence(word, pos),
                    (ref,),
                )
            )
    return tuple(probes)


def _sentence(pos: Pos, german: str, det: str) -> str:
    if pos is Pos.ADJ:
        return f"Dies ist {german}."
    if pos is Pos.NOUN:
        return f"{det or 'Das'} {german} kann schön sein."
    return f"Wir {german}."


def demo_runs(seed: int) -> dict[str, bytes]:
    rng = random.Random(f"mt_lexicon_probe-demo/{seed}")
    wide, small, segmenting = [], [], []
    for (pos, fc), words in _WORDS.items():
        for word, ref, det, guess in words:
            wide.append(
                _sentence(
                    pos,
                    ref if fc is not FreqClass.LOW or rng.random() < 0.8 else guess,
                    det,
                )
            )
            unknown = (fc is FreqClass.LOW and rng.random() < 0.7) or (
                fc is FreqClass.MEDIUM and rng.random() < 0.3
            )
            small.append(_sentence(pos, word if unknown else ref, det))
            segmenting.append(_sentence(pos, guess, det))
    return {
        name: ("\n".join(lines) + "\n").encode()
        for name, lines in (
            ("wide", wide),
            ("small", small),
            ("segmenting", segmenting),
        )
    }


def make_demo(seed: int = 0) -> Demo:
    probes = demo_probes()
    runs = demo_runs(seed)
    test_set = DemoTestSet(
        name="demo-en-de",
        title="Probe sentences, en-de",
        inputs={"probes": probes_to_tsv(probes, references=False).encode()},
        gold={"references": references_to_tsv(probes).encode()},
    )
    return Demo(
        title="Probing MT lexicons (English to German)",
        description=(
            "27 project-written probe sentences (3 adjectives, nouns and verbs in each "
            "frequency class) and three invented MT systems. Copied source words are "
            "tagged u automatically, translations containing the reference are proposed "
            "as correct; the rest awaits annotation."
        ),
        settings={},
        test_sets=(test_set,),
        runs=(
            ("Demo team A", "wide lexicon", {"demo-en-de": runs["wide"]}),
            ("Demo team B", "small lexicon", {"demo-en-de": runs["small"]}),
            ("Demo team C", "compound segmenter", {"demo-en-de": runs["segmenting"]}),
        ),
    )
