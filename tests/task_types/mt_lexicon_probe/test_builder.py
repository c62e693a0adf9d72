from __future__ import annotations

import functools

import pytest

from tasks.mt_lexicon_probe.builder import (
    DEFAULT_TEMPLATES,
    BuildConfig,
    build_probe_set,
    celex_count_to_zipf,
    default_zipf,
    read_genders,
    read_pairs,
    wordfreq_zipf,
)
from tasks.mt_lexicon_probe.closed_class import CLOSED_CLASS
from tasks.mt_lexicon_probe.probes import FreqClass, Pos, probes_to_tsv
from tests.paths import shared_data

SPLITS = {Pos.ADJ: "Adjective", Pos.NOUN: "Noun", Pos.VERB: "Verb"}


@functools.cache
def _pos_pairs() -> dict[Pos, tuple[tuple[str, str], ...]]:
    root = shared_data("mt_lexical_coverage", "wiktionary_bli_de_en")
    return {
        pos: tuple(
            pair
            for split in ("train", "test")
            for pair in read_pairs(
                (root / f"de-en.{split}.{name}").read_bytes(),
                name,
                columns=("de", "en"),
                source="en",
            )
        )
        for pos, name in SPLITS.items()
    }


@functools.cache
def _build(seed: int):
    return build_probe_set(_pos_pairs(), BuildConfig(seed=seed), frequency=_zipf())


@functools.cache
def _zipf():
    return functools.cache(wordfreq_zipf("en"))


def test_zipf_equivalents_of_celex_counts():
    # English COBUILD 17.9 M tokens: 25 -> log10(1396.6) = 3.145; 1 -> log10(55.87) = 1.747
    assert default_zipf("en", 25) == 3.15
    assert default_zipf("en", 1) == 1.75
    # German Mannheim ~5.4 M tokens: 25 -> log10(4629.6) = 3.666; 1 -> log10(185.2) = 2.268
    assert default_zipf("de", 25) == 3.67
    assert default_zipf("de", 1) == 2.27
    assert celex_count_to_zipf(0, 17_900_000) == 0.0


def test_real_lexicon_bands_and_counts():
    result = _build(1)
    probes = result.probes.probes
    assert len(probes) == 900
    zipf = _zipf()
    for pos in Pos:
        cell = {
            fc: [p for p in probes if p.pos is pos and p.freq_class is fc]
            for fc in FreqClass
        }
        assert all(len(v) == 100 for v in cell.values())
        for p in cell[FreqClass.MEDIUM]:
            assert 3.0 - 1e-9 <= zipf(p.word) <= 3.3 + 1e-9
        for p in cell[FreqClass.LOW]:
            assert 1.6 - 1e-9 <= zipf(p.word) <= 1.9 + 1e-9
        # high = the most frequent: far above the medium band, sorted by frequency
        highs = [zipf(p.word) for p in cell[FreqClass.HIGH]]
        assert min(highs) > 5.0 and highs == sorted(highs, reverse=True)
    bands = {(b.pos, b.freq_class): b for b in result.bands}
    # counts available per band on the Wiktionary de-en POS splits (train + test)
    assert bands[(Pos.VERB, FreqClass.LOW)].available == 143
    assert bands[(Pos.ADJ, FreqClass.MEDIUM)].available == 970
    assert bands[(Pos.NOUN, FreqClass.LOW)].available == 994
    assert all(b.selected == 100 for b in result.bands)
    assert result.warnings == ()


def test_exclusions_on_real_lexicon():
    probes = _build(1).probes.probes
    words = {p.word for p in probes}
    assert not words & CLOSED_CLASS["en"]
    for p in probes:
        assert p.references, p.id
        assert p.word.isalpha()
        assert p.word.casefold() not in {r.casefold() for r in p.references}
        assert p.sentence == DEFAULT_TEMPLATES["en"].sentence(p.word, p.pos)
    assert "international" not in words
    # German references of nouns are capitalised
    assert all(
        r[0].isupper()
        for p in probes
        if p.pos is Pos.NOUN
        for r in p.references
        if r[0].isalpha()
    )
    excluded = _build(1).excluded
    assert excluded["identical_in_both_languages"] > 1000
    assert excluded["excluded_word_list"] > 50


def test_deterministic_given_seed():
    first = probes_to_tsv(_build(1).probes.probes)
    again = build_probe_set(_pos_pairs(), BuildConfig(seed=1), frequency=_zipf())
    assert probes_to_tsv(again.probes.probes) == first
    other = _build(2).probes.probes
    base = _build(1).probes.probes
    assert [p.word for p in other if p.freq_class is FreqClass.HIGH] == [
        p.word for p in base if p.freq_class is FreqClass.HIGH
    ]
    assert [p.word for p in other if p.freq_class is FreqClass.LOW] != [
        p.word for p in base if p.freq_class is FreqClass.LOW
    ]


def test_small_synthetic_lexicon_rules():
    freq = {
        "alpha": 6.0,
        "beta": 3.1,
        "gamma": 1.7,
        "delta": 1.75,
        "radio": 5.0,
        "from": 7.0,
    }
    pairs = {
        Pos.NOUN: [
            ("alpha", "Alfa"),
            ("beta", "Beta"),
            ("gamma", "Gamma-Strahl"),
            ("delta", "Dreieck"),
            ("radio", "Funk"),
            ("ice cream", "Eis"),
        ],
        Pos.ADJ: [("from", "reykjaviker"), ("alpha", "erst")],
    }
    result = build_probe_set(
        pairs,
        BuildConfig(per_cell=1),
        frequency=lambda w: freq.get(w, 0.0),
        dictionary_pairs=[("radio", "Radio")],
    )
    by_cell = {(p.pos, p.freq_class): p.word for p in result.probes.probes}
    # beta == Beta and radio == Radio (from the extra dictionary): excluded
    # beta = Beta and radio = Radio (extra dictionary) are excluded; gamma and delta
    # are both in the low band 1.75 +- 0.15, the seed picks one of them
    low = by_cell.pop((Pos.NOUN, FreqClass.LOW))
    assert low in {"gamma", "delta"}
    assert by_cell == {
        (Pos.NOUN, FreqClass.HIGH): "alpha",
        (Pos.ADJ, FreqClass.HIGH): "alpha",
    }
    assert result.excluded == {
        "not_single_word": 1,
        "identical_in_both_languages": 2,
        "excluded_word_list": 1,
    }
    assert any("noun/medium: only 0 words" in w for w in result.warnings)


def test_german_templates_use_gender():
    de = DEFAULT_TEMPLATES["de"]
    assert de.sentence("Laterne", Pos.NOUN, "f") == "Eine Laterne ist gut."
    assert de.sentence("Haus", Pos.NOUN, "n") == "Ein Haus ist gut."
    assert de.sentence("Leute", Pos.NOUN, "pl") == "Die Leute sind gut."
    assert de.sentence("Tisch", Pos.NOUN) == "Ein Tisch ist gut."
    assert de.sentence("stricken", Pos.VERB) == "Wir müssen stricken."
    assert de.sentence("hart", Pos.ADJ) == "Es ist hart."
    pairs = {Pos.NOUN: [("laterne", "lantern")]}
    genders = read_genders(b"Laterne\tf\n", "g.tsv")
    result = build_probe_set(
        pairs,
        BuildConfig(lang="de", target_lang="en", per_cell=1),
        frequency=lambda w: 4.0,
        genders=genders,
    )
    probe = result.probes.probes[0]
    assert (probe.word, probe.sentence, probe.references) == (
        "Laterne",
        "Eine Laterne ist gut.",
        ("lantern",),
    )


def test_bad_pair_file():
    from tasks.base import FormatError

    with pytest.raises(FormatError) as exc:
        read_pairs(b"haus\thouse\nkaputt\n", "x.tsv", columns=("de", "en"), source="en")
    assert exc.value.problems[0].line == 2


def test_json_and_zip_pair_files():
    from tasks.base import FormatError
    from tasks.mt_lexicon_probe.builder import read_json_pairs

    assert read_json_pairs(b'{"tribe": ["Stamm", "Sippe"], "x": []}', "d.json") == [
        ("tribe", "Stamm"),
        ("tribe", "Sippe"),
    ]
    zipped = shared_data(
        "mt_lexical_coverage", "de_wiktionary_parser", "de_noun_translations_inv.zip"
    )
    pairs = read_json_pairs(zipped.read_bytes(), zipped.name)
    assert ("phylum", "Stamm") in pairs and len(pairs) > 10_000
    with pytest.raises(FormatError, match="invalid JSON"):
        read_json_pairs(b"{", "d.json")
