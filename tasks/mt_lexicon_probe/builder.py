"""Building a probe set (organiser tool behind ``evalhub probe build``).

Volk (1997), seed ``004_50c8345678ce5bb6``, section 2.1: for each word class, the 100
most frequent words (high), 100 words of CELEX frequency 25 (medium) and 100 of
frequency 1 (low), minus words spelt the same in both languages, each embedded in a
template sentence forcing the part of speech. Here wordfreq's Zipf values stand in
for CELEX counts (:func:`celex_count_to_zipf`).
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from tasks.mt_lexicon_probe.closed_class import CLOSED_CLASS
from tasks.mt_lexicon_probe.lexicon_files import (
    DEFAULT_TEMPLATES,
    POS_LABELS,
    Templates,
    read_genders,
    read_json_pairs,
    read_pairs,
    read_pos_lexicon,
    read_word_pairs,
    templates_for,
)
from tasks.mt_lexicon_probe.probes import FreqClass, Pos, Probe, ProbeSet

__all__ = [
    "BandCount",
    "BuildConfig",
    "BuildResult",
    "CELEX_TOKENS",
    "DEFAULT_TEMPLATES",
    "POS_LABELS",
    "Templates",
    "build_probe_set",
    "celex_count_to_zipf",
    "default_zipf",
    "read_genders",
    "read_json_pairs",
    "read_pairs",
    "read_pos_lexicon",
    "read_word_pairs",
    "templates_for",
    "wordfreq_zipf",
]

#: Tokens in the CELEX frequency corpora: English = COBUILD (17.9 M, CELEX English
#: guide); German = Mannheim corpus (about 5.4 M; approximate).
CELEX_TOKENS = {"en": 17_900_000, "de": 5_400_000}


def celex_count_to_zipf(count: float, corpus_tokens: int) -> float:
    """Zipf value of a word seen ``count`` times in a corpus of ``corpus_tokens``.

    Formula: Zipf = log10(count / corpus_tokens * 1e9), i.e. log10 of the frequency
    per billion words (wordfreq's scale). Edge case: count <= 0 gives 0.0 (wordfreq's
    value for unseen words). Citation: Zipf scale of van Heuven et al. (2014), as
    used by ``wordfreq.zipf_frequency``; CELEX sizes in :data:`CELEX_TOKENS`.

    Example: the paper's medium class, English count 25 in 17.9 M tokens:
    25 / 17.9e6 * 1e9 = 1396.6 per billion, Zipf 3.145; count 1 gives Zipf 1.747.

    >>> round(celex_count_to_zipf(25, 17_900_000), 3), round(celex_count_to_zipf(1, 17_900_000), 3)
    (3.145, 1.747)
    """
    if count <= 0:
        return 0.0
    return math.log10(count / corpus_tokens * 1e9)


def default_zipf(lang: str, count: float) -> float:
    """The default band centre for ``lang`` (2 decimals, wordfreq's precision)."""
    return round(
        celex_count_to_zipf(count, CELEX_TOKENS.get(lang, CELEX_TOKENS["en"])), 2
    )


@dataclass(frozen=True, slots=True)
class BuildConfig:
    """``medium_zipf`` / ``low_zipf``: band centres (None = the CELEX 25 / 1
    equivalents for ``lang``); a band is centre +- ``band_width``."""

    lang: str = "en"
    target_lang: str = "de"
    per_cell: int = 100
    seed: int = 1
    medium_zipf: float | None = None
    low_zipf: float | None = None
    band_width: float = 0.15
    min_pos_share: float = 0.25
    drop_closed_class: bool = True

    def centre(self, fc: FreqClass) -> float:
        if fc is FreqClass.MEDIUM:
            return (
                self.medium_zipf
                if self.medium_zipf is not None
                else default_zipf(self.lang, 25)
            )
        return (
            self.low_zipf if self.low_zipf is not None else default_zipf(self.lang, 1)
        )


@dataclass(frozen=True, slots=True)
class BandCount:
    pos: Pos
    freq_class: FreqClass
    zipf_min: float
    zipf_max: float
    available: int
    selected: int


@dataclass(frozen=True, slots=True)
class BuildResult:
    probes: ProbeSet
    bands: tuple[BandCount, ...]
    excluded: Mapping[str, int]
    warnings: tuple[str, ...] = field(default=())


_WORD = re.compile(r"[^\W\d_]+")


def _spell(word: str, pos: Pos, lang: str) -> str:
    """German nouns are capitalised (the Wiktionary BLI files are lower case)."""
    return word[:1].upper() + word[1:] if lang == "de" and pos is Pos.NOUN else word


def build_probe_set(
    pos_pairs: Mapping[Pos, Iterable[tuple[str, str]]],
    config: BuildConfig,
    *,
    frequency: Callable[[str], float],
    dictionary_pairs: Iterable[tuple[str, str]] = (),
    genders: Mapping[str, str] | None = None,
    templates: Templates | None = None,
    exclude: Iterable[str] = (),
) -> BuildResult:
    """Select ``per_cell`` words per word class x frequency class.

    Candidates: single words of letters only (wordfreq splits hyphens and
    apostrophes), known to wordfreq (Zipf > 0), not in ``exclude`` nor (with
    ``drop_closed_class``) in :data:`CLOSED_CLASS`, not spelt the same as any of their
    translations in ``pos_pairs`` or ``dictionary_pairs`` (case-insensitive), and
    with at least ``min_pos_share`` of their dictionary pairs in the class (drops
    noise such as an English adjective listed under a German verb).
    High = the most frequent candidates; medium and low = a seeded random sample of
    the candidates within ``centre +- band_width``, ordered by frequency.
    """
    if config.per_cell < 1:
        raise ValueError("per_cell must be at least 1")
    templates = (
        templates or DEFAULT_TEMPLATES.get(config.lang) or DEFAULT_TEMPLATES["en"]
    )
    genders = genders or {}
    refs: dict[tuple[str, Pos], list[str]] = defaultdict(list)
    pos_count: dict[str, Counter[Pos]] = defaultdict(Counter)
    identical: set[str] = set()
    excluded: Counter[str] = Counter()
    for pos, pairs in pos_pairs.items():
        for src, tgt in pairs:
            key = src.casefold()
            if src.casefold() == tgt.casefold():
                identical.add(key)
            pos_count[key][pos] += 1
            tgt = _spell(tgt, pos, config.target_lang)
            if tgt not in refs[(key, pos)]:
                refs[(key, pos)].append(tgt)
    for src, tgt in dictionary_pairs:
        if src.casefold() == tgt.casefold():
            identical.add(src.casefold())
    stop = {w.casefold() for w in exclude}
    if config.drop_closed_class:
        stop |= CLOSED_CLASS.get(config.lang, frozenset())
    zipf: dict[str, float] = {}
    candidates: dict[Pos, list[str]] = {pos: [] for pos in Pos}
    for word in sorted(pos_count):
        if not _WORD.fullmatch(word):
            excluded["not_single_word"] += 1
            continue
        if word in stop:
            excluded["excluded_word_list"] += 1
            continue
        if word in identical:
            excluded["identical_in_both_languages"] += 1
            continue
        z = frequency(word)
        if z <= 0:
            excluded["unknown_to_wordfreq"] += 1
            continue
        zipf[word] = z
        total = sum(pos_count[word].values())
        for pos, n in pos_count[word].items():
            if n / total >= config.min_pos_share:
                candidates[pos].append(word)
            else:
                excluded["minor_part_of_speech"] += 1
    probes: list[Probe] = []
    bands: list[BandCount] = []
    warnings: list[str] = []
    for pos in Pos:
        pool = candidates[pos]
        by_freq = sorted(pool, key=lambda w: (-zipf[w], w))
        taken = set(by_freq[: config.per_cell])
        chosen: dict[FreqClass, list[str]] = {
            FreqClass.HIGH: by_freq[: config.per_cell]
        }
        for fc in (FreqClass.MEDIUM, FreqClass.LOW):
            lo, hi = (
                config.centre(fc) - config.band_width,
                config.centre(fc) + config.band_width,
            )
            band = [
                w for w in pool if lo - 1e-9 <= zipf[w] <= hi + 1e-9 and w not in taken
            ]
            rng = random.Random(f"{config.seed}/{pos.value}/{fc.value}")
            pick = rng.sample(band, min(config.per_cell, len(band)))
            taken.update(pick)
            chosen[fc] = sorted(pick, key=lambda w: (-zipf[w], w))
            bands.append(
                BandCount(pos, fc, round(lo, 2), round(hi, 2), len(band), len(pick))
            )
            if len(band) < config.per_cell:
                warnings.append(
                    f"{pos.value}/{fc.value}: only {len(band)} words in Zipf {lo:.2f}-{hi:.2f}"
                )
        high = chosen[FreqClass.HIGH]
        bands.insert(
            len(bands) - 2,
            BandCount(
                pos,
                FreqClass.HIGH,
                min((zipf[w] for w in high), default=0.0),
                max((zipf[w] for w in high), default=0.0),
                len(pool),
                len(high),
            ),
        )
        for fc in FreqClass:
            for i, word in enumerate(chosen[fc], start=1):
                spelt = _spell(word, pos, config.lang)
                sentence = templates.sentence(spelt, pos, genders.get(word))
                probes.append(
                    Probe(
                        f"{pos.value}-{fc.value}-{i:03d}",
                        spelt,
                        pos,
                        fc,
                        sentence,
                        tuple(refs[(word, pos)]),
                    )
                )
    return BuildResult(
        ProbeSet(tuple(probes)), tuple(bands), dict(excluded), tuple(warnings)
    )


def wordfreq_zipf(lang: str) -> Callable[[str], float]:
    """wordfreq's Zipf frequency for ``lang`` (offline; data ships in the wheel)."""
    import wordfreq

    def zipf(word: str) -> float:
        return float(wordfreq.zipf_frequency(word, lang))

    return zipf
