"""ARCADE recall/precision at four granularities, and vecalign's strict/lax scores.

Everything is computed from *counts* so that documents can be summed (micro average).
Sentence pairs are encoded as integers ``s * m + t`` (``m`` = number of target
sentences) in numpy arrays; word- and character-level sums weigh each common sentence
pair by ``|s|·|t|`` instead of enumerating unit pairs, so a 400,000-word bitext scores
in a fraction of a second.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tasks.base import JSON
from tasks.sentence_alignment.formats import Alignment, Bisegment, Document

#: ARCADE's four granularities, then vecalign's two bisegment-level measures.
LEVELS: tuple[str, ...] = ("alignment", "sentence", "word", "char", "strict", "lax")
ARCADE_LEVELS: tuple[str, ...] = LEVELS[:4]
WORD = re.compile(r"\w+|[^\w\s]")

IntArray = npt.NDArray[np.int64]


def prf(
    correct: int, proposed: int, correct_reference: int, reference: int
) -> tuple[float, float, float]:
    """Precision, recall and F1 from counts.

    Definition: P = c_p / |proposed|, R = c_r / |reference|, F = 2PR / (P + R), where
    c_p counts the proposed items judged correct and c_r the reference items found
    (ARCADE: c_p = c_r = |A ∩ A_r|; vecalign's lax measures: they differ).
    Edge cases: 0/0 -> 0.0 for P, R and F (vecalign's ``value_for_div_by_0``).
    Citation: seed 003 (Langlais et al., ARCADE), section 4.2; vecalign ``score.py``.

    Worked example (seed 003, alignment level): 1 correct of 3 proposed and 2 reference
    bisegments gives P = 1/3, R = 0.5, F = 0.4:

    >>> [round(v, 4) for v in prf(1, 3, 1, 2)]
    [0.3333, 0.5, 0.4]
    """
    p = correct / proposed if proposed else 0.0
    r = correct_reference / reference if reference else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


@dataclass(frozen=True, slots=True)
class Counts:
    """Counts behind one P/R/F: ``correct`` / ``proposed`` is precision,
    ``correct_reference`` / ``reference`` is recall. Summable over documents."""

    correct: int
    proposed: int
    correct_reference: int
    reference: int

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.correct + other.correct,
            self.proposed + other.proposed,
            self.correct_reference + other.correct_reference,
            self.reference + other.reference,
        )

    @property
    def scores(self) -> tuple[float, float, float]:
        return prf(self.correct, self.proposed, self.correct_reference, self.reference)

    def to_json(self) -> dict[str, JSON]:
        p, r, f = self.scores
        return {
            "precision": p,
            "recall": r,
            "f1": f,
            "correct": self.correct,
            "proposed": self.proposed,
            "correct_reference": self.correct_reference,
            "reference": self.reference,
        }


ZERO = Counts(0, 0, 0, 0)


@dataclass(frozen=True, slots=True)
class LevelCounts:
    """Counts at every level (``LEVELS`` order) for one document or a test set."""

    name: str
    levels: tuple[Counts, ...]

    def get(self, level: str) -> Counts:
        return self.levels[LEVELS.index(level)]

    def to_json(self) -> dict[str, JSON]:
        return {
            level: c.to_json() for level, c in zip(LEVELS, self.levels, strict=True)
        }


def micro(name: str, documents: Sequence[LevelCounts]) -> LevelCounts:
    """Test-set counts: every count summed over the documents (micro average)."""
    totals = [ZERO] * len(LEVELS)
    for doc in documents:
        totals = [a + b for a, b in zip(totals, doc.levels, strict=True)]
    return LevelCounts(name, tuple(totals))


def word_count(sentence: str) -> int:
    """Words of a sentence: matches of ``\\w+|[^\\w\\s]`` (Unicode), so every
    punctuation mark is a word (seed 003, 4.3).

    >>> word_count("Le chat, dit-il.")
    7
    """
    return len(WORD.findall(sentence))


def char_count(sentence: str) -> int:
    """Characters of a sentence: those that are not whitespace.

    >>> char_count(" a b\\u00a0c ")
    3
    """
    return len("".join(sentence.split()))


def unit_counts(sentences: Sequence[str]) -> tuple[IntArray, IntArray]:
    """Word and character counts of many sentences at once, equal to
    :func:`word_count` and :func:`char_count` applied to each.

    Every code point is classed once as word (``\\w``), space (``\\s``) or other, by the
    ``re`` module itself on each *distinct* code point; then, over the whole text, a word
    is a maximal run of word characters or a single other character (exactly how
    ``\\w+|[^\\w\\s]`` tokenises) and a character is anything not a space. Sentences
    are joined with newlines (a space), so no word crosses a sentence boundary.

    >>> [a.tolist() for a in unit_counts(["Le chat, dit-il.", "", " x  y"])]
    [[7, 0, 2], [14, 0, 2]]

    Sentences are counted in blocks of about ``BLOCK_CHARS`` characters, so memory
    stays bounded on long documents (the counts do not depend on the blocks).
    """
    n = len(sentences)
    lengths = np.fromiter((len(s) for s in sentences), np.int64, n)
    ends = np.cumsum(lengths + 1)
    if n == 0 or ends[-1] <= BLOCK_CHARS:
        return _unit_counts_block(sentences)
    cuts = np.searchsorted(ends, np.arange(BLOCK_CHARS, int(ends[-1]), BLOCK_CHARS))
    bounds = [0, *sorted({int(c) + 1 for c in cuts if 0 < int(c) + 1 < n}), n]
    parts = [
        _unit_counts_block(sentences[lo:hi])
        for lo, hi in zip(bounds, bounds[1:], strict=False)
    ]
    return (
        np.concatenate([w for w, _ in parts]),
        np.concatenate([c for _, c in parts]),
    )


#: Characters counted at once by :func:`unit_counts`.
BLOCK_CHARS = 1 << 20


def _unit_counts_block(sentences: Sequence[str]) -> tuple[IntArray, IntArray]:
    """:func:`unit_counts` on one block of sentences."""
    n = len(sentences)
    text = "\n".join(sentences)
    if not text.strip():
        return np.zeros(n, np.int64), np.zeros(n, np.int64)
    cps = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    present = np.flatnonzero(np.bincount(cps))
    table = np.zeros(int(present[-1]) + 1, dtype=np.uint8)  # 0 space, 1 word, 2 other
    for cp in present.tolist():
        ch = chr(cp)
        table[cp] = 1 if _WORD_CHAR.match(ch) else 0 if _SPACE_CHAR.match(ch) else 2
    cls = table[cps]
    word_char = cls == 1
    starts = (cls == 2) | (word_char & ~np.concatenate(([False], word_char[:-1])))
    lengths = np.fromiter((len(s) for s in sentences), np.int64, n)
    begin = np.cumsum(lengths + 1) - lengths - 1
    end = begin + lengths

    def per_sentence(flags: npt.NDArray[np.bool_]) -> IntArray:
        where = np.flatnonzero(flags)
        counts = np.searchsorted(where, end) - np.searchsorted(where, begin)
        return counts.astype(np.int64)

    return per_sentence(starts), per_sentence(cls != 0)


_WORD_CHAR = re.compile(r"\w")
_SPACE_CHAR = re.compile(r"\s")


@dataclass(frozen=True, slots=True)
class Units:
    """Per-sentence word and character counts of a document, as numpy arrays."""

    source_words: IntArray
    target_words: IntArray
    source_chars: IntArray
    target_chars: IntArray

    @classmethod
    def of(cls, doc: Document) -> Units:
        source_words, source_chars = unit_counts(doc.source)
        target_words, target_chars = unit_counts(doc.target)
        return cls(source_words, target_words, source_chars, target_chars)


@dataclass(frozen=True, slots=True)
class _Pairs:
    """The sentence pairs (cross products) of an alignment's bisegments."""

    keys: IntArray  # s * m + t for every pair, grouped by bisegment
    owner: IntArray  # index of the bisegment each pair comes from


def _pairs(segments: Sequence[Bisegment], m: int) -> _Pairs:
    k = len(segments)
    ls = np.fromiter((len(b.source) for b in segments), np.int64, k)
    lt = np.fromiter((len(b.target) for b in segments), np.int64, k)
    src = np.fromiter((i for b in segments for i in b.source), np.int64, int(ls.sum()))
    tgt = np.fromiter((j for b in segments for j in b.target), np.int64, int(lt.sum()))
    n_pairs = ls * lt
    owner = np.repeat(np.arange(k, dtype=np.int64), n_pairs)
    pos = (
        np.arange(int(n_pairs.sum()), dtype=np.int64)
        - (np.cumsum(n_pairs) - n_pairs)[owner]
    )
    width = lt[owner]
    s = src[(np.cumsum(ls) - ls)[owner] + pos // np.maximum(width, 1)]
    t = tgt[(np.cumsum(lt) - lt)[owner] + pos % np.maximum(width, 1)]
    return _Pairs(s * m + t, owner)


def _weight(keys: IntArray, m: int, source: IntArray, target: IntArray) -> int:
    return int((source[keys // m] * target[keys % m]).sum())


def _touching(pairs: _Pairs, other_keys: IntArray, k: int) -> npt.NDArray[np.bool_]:
    """For each of ``k`` bisegments: does one of its pairs occur in ``other_keys``?"""
    hit = np.zeros(k, dtype=bool)
    hit[pairs.owner[np.isin(pairs.keys, other_keys, assume_unique=False)]] = True
    return hit


@dataclass(frozen=True, slots=True)
class Outcome:
    """Per-document result: counts plus the misaligned bisegments for the detail."""

    counts: LevelCounts
    spurious: tuple[tuple[Bisegment, bool], ...]  # run bisegment not in gold, lax hit?
    missed: tuple[tuple[Bisegment, bool], ...]  # gold bisegment not in run, lax hit?


def score_document(
    doc: Document, gold: Alignment, run: Alignment, units: Units | None = None
) -> Outcome:
    """All six levels for one document.

    ARCADE (seed 003, 4.2-4.3): alignment level compares bisegments (both sides equal
    as sets); sentence level compares A' = ∪ a × b; word/char level weigh each pair of
    A' by |s|·|t| units. vecalign strict/lax (``score.py``): precision over every run
    bisegment (a strict hit equals a gold bisegment, a lax hit shares a source and a
    target sentence with one and the same gold bisegment, i.e. one of its pairs is in
    A'_r); recall over the gold bisegments with both sides non-empty, matched against
    the run's non-empty-sided bisegments.
    """
    units = units or Units.of(doc)
    m = max(len(doc.target), 1)
    g_segs, r_segs = gold.bisegments, run.bisegments
    g_keys = [b.key for b in g_segs]
    r_keys = [b.key for b in r_segs]
    g_set, r_set = set(g_keys), set(r_keys)
    common = len(g_set & r_set)
    alignment = Counts(common, len(r_set), common, len(g_set))

    gp, rp = _pairs(g_segs, m), _pairs(r_segs, m)
    g_pairs, r_pairs = np.unique(gp.keys), np.unique(rp.keys)
    both = np.intersect1d(g_pairs, r_pairs, assume_unique=True)
    sentence = Counts(len(both), len(r_pairs), len(both), len(g_pairs))
    words = [
        _weight(x, m, units.source_words, units.target_words)
        for x in (both, r_pairs, g_pairs)
    ]
    chars = [
        _weight(x, m, units.source_chars, units.target_chars)
        for x in (both, r_pairs, g_pairs)
    ]
    word = Counts(words[0], words[1], words[0], words[2])
    char = Counts(chars[0], chars[1], chars[0], chars[2])

    r_strict = np.fromiter((key in g_set for key in r_keys), bool, len(r_keys))
    g_strict = np.fromiter((key in r_set for key in g_keys), bool, len(g_keys))
    r_lax = r_strict | _touching(rp, g_pairs, len(r_segs))
    g_lax = g_strict | _touching(gp, r_pairs, len(g_segs))
    g_full = np.fromiter(
        (bool(b.source and b.target) for b in g_segs), bool, len(g_segs)
    )
    n_full = int(g_full.sum())
    strict = Counts(
        int(r_strict.sum()), len(r_segs), int((g_strict & g_full).sum()), n_full
    )
    lax = Counts(int(r_lax.sum()), len(r_segs), int((g_lax & g_full).sum()), n_full)

    counts = LevelCounts(doc.name, (alignment, sentence, word, char, strict, lax))
    spurious = tuple(
        (b, bool(h)) for b, s, h in zip(r_segs, r_strict, r_lax, strict=True) if not s
    )
    missed = tuple(
        (b, bool(h)) for b, s, h in zip(g_segs, g_strict, g_lax, strict=True) if not s
    )
    return Outcome(counts, spurious, missed)
