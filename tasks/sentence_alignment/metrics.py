"""ARCADE recall/precision at four granularities, and vecalign's strict/lax scores.

Everything is computed from *counts* so that documents can be summed (micro average).
Sentence pairs are encoded as integers ``s * m + t`` (``m`` = number of target
sentences) in Python sets (no numpy: the command line starts faster than numpy
imports); word- and character-level sums weigh each common sentence
pair by ``|s|·|t|`` instead of enumerating unit pairs, so a 400,000-word bitext scores
in a fraction of a second.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from operator import add, and_, floordiv, mod, mul, not_, sub
from typing import Any

from tasks.base import JSON
from tasks.sentence_alignment.formats import Alignment, Bisegment, Document

#: ARCADE's four granularities, then vecalign's two bisegment-level measures.
LEVELS: tuple[str, ...] = ("alignment", "sentence", "word", "char", "strict", "lax")
ARCADE_LEVELS: tuple[str, ...] = LEVELS[:4]
WORD = re.compile(r"\w+|[^\w\s]")


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


def unit_counts(sentences: Sequence[str]) -> tuple[list[int], list[int]]:
    """Word and character counts of many sentences at once, equal to
    :func:`word_count` and :func:`char_count` applied to each.

    Every distinct code point is classed once, by the ``re`` module itself, as word
    (``\\w``), space (``\\s``) or other; the text is then rewritten in UTF-8 with one
    byte per code point naming its class (``w``, space, ``o``), at C speed
    (``bytes.translate``; the few non-ASCII spaces and others are substituted
    first). In that string a word is a maximal run of ``w`` or a single ``o``
    (exactly how ``\\w+|[^\\w\\s]`` tokenises) and a character is anything not a
    space. Sentences are joined with newlines, so no word crosses a sentence
    boundary.

    >>> unit_counts(["Le chat, dit-il.", "", " x  y"])
    ([7, 0, 2], [14, 0, 2])

    Sentences are counted in blocks of about ``BLOCK_CHARS`` characters (at least
    one sentence a block; the counts do not depend on the blocks), so the few large
    buffers of a block are made again in memory the process already holds: counting
    a MAC-Test-size bitext in one block took 2,700 fresh pages of memory and 22 ms,
    in blocks of 128 K characters 190 pages and 15 ms.
    """
    words: list[int] = []
    chars: list[int] = []
    # where each sentence ends in the text joined with newlines
    ends = list(itertools.accumulate(map(len, sentences), initial=0))
    ends = list(map(add, ends, range(len(ends))))
    lo = 0
    while lo < len(sentences):
        hi = max(bisect.bisect_right(ends, ends[lo] + BLOCK_CHARS) - 1, lo + 1)
        _count_block(sentences[lo:hi], words, chars)
        lo = hi
    return words, chars


#: Characters counted at once by :func:`unit_counts`.
BLOCK_CHARS = 1 << 17

_WORD_CHAR = re.compile(r"\w")
_SPACE_CHAR = re.compile(r"\s")


@functools.lru_cache(maxsize=4096)  # bounded: a worker lives long
def _class_byte(ch: str) -> bytes:
    return b"w" if _WORD_CHAR.match(ch) else b" " if _SPACE_CHAR.match(ch) else b"o"


#: ASCII bytes to their class; UTF-8 lead bytes to ``w`` (non-ASCII spaces and
#: others are substituted before the translation); the newline stays a newline.
_CLASSES = bytes(
    ord("\n") if b == 10 else _class_byte(chr(b))[0] if b < 128 else ord("w")
    for b in range(256)
)
_CONTINUATION = bytes(range(0x80, 0xC0))
_ASCII = bytes(range(128))


def _count_block(sentences: Sequence[str], words: list[int], chars: list[int]) -> None:
    """:func:`unit_counts` on one block of sentences, appended to the lists.

    With a space put before every line and every ``o`` written as a one-letter word
    between spaces (`` w ``), a word starts at each space-``w``, and the added spaces
    change no line's length less its spaces: two counts and a length a line, each at
    C speed."""
    raw = "\n".join(sentences).encode()
    if not raw.isascii():
        others = {
            ch.encode(): b"!" if cls == b"o" else cls
            for ch in set(raw.translate(None, _ASCII).decode())
            if (cls := _class_byte(ch)) != b"w"
        }
        if others:  # "!" is an ASCII "other", " " an ASCII space
            raw = _replaced(raw, others)
    classes = raw.translate(_CLASSES, _CONTINUATION)
    lines = (b" " + classes.replace(b"o", b" w ").replace(b"\n", b"\n ")).split(b"\n")
    words += map(bytes.count, lines, itertools.repeat(b" w"))
    chars += map(sub, map(len, lines), map(bytes.count, lines, itertools.repeat(b" ")))


def _replaced(raw: bytes, others: dict[bytes, bytes]) -> bytes:
    """``raw`` with each UTF-8 sequence of ``others`` replaced by its value. When their
    lead bytes are rare (punctuation in a Latin-script text), the lead bytes are found
    with ``bytes.find`` and only those places looked at; otherwise (CJK punctuation
    shares its lead bytes with letters) one regular-expression pass."""
    leads = {seq[:1] for seq in others}
    if sum(map(raw.count, leads)) * RARE > len(raw):
        longest_first = sorted(others, key=len, reverse=True)
        pattern = re.compile(b"|".join(map(re.escape, longest_first)))
        return pattern.sub(lambda m: others[m.group()], raw)
    places: list[int] = []
    for lead in leads:
        at = raw.find(lead)
        while at >= 0:
            places.append(at)
            at = raw.find(lead, at + 1)
    pieces: list[bytes] = []
    done = 0
    for at in sorted(places):
        size = _UTF8_SIZE[raw[at]]
        new = others.get(raw[at : at + size])
        if new is not None:
            pieces += (raw[done:at], new)
            done = at + size
    pieces.append(raw[done:])
    return b"".join(pieces)


#: Lead bytes are rare when there is at most one in ``RARE`` bytes.
RARE = 256

#: The length of a UTF-8 sequence from its lead byte (continuation bytes: 1).
_UTF8_SIZE = bytes(
    1 if b < 0xC0 else 2 if b < 0xE0 else 3 if b < 0xF0 else 4 for b in range(256)
)


@dataclass(frozen=True, slots=True)
class Units:
    """Per-sentence word and character counts of a document."""

    source_words: Sequence[int]
    target_words: Sequence[int]
    source_chars: Sequence[int]
    target_chars: Sequence[int]

    @classmethod
    def of(cls, doc: Document) -> Units:
        """Both sides counted in one pass of :func:`unit_counts`."""
        words, chars = unit_counts((*doc.source, *doc.target))
        n = len(doc.source)
        return cls(words[:n], words[n:], chars[:n], chars[n:])


def _strict_keys(
    sources: Sequence[tuple[int, ...]], targets: Sequence[tuple[int, ...]], m: int
) -> list[Any]:
    """What makes each bisegment itself: its sides; a one-to-one bisegment (most of
    them) as the int of its pair, ``s * m + t``, which takes a third of a tuple's
    memory. At C speed: ``sum`` of a one-number side is that number, and the few
    bisegments whose sides' sizes do not multiply to 1 get their sides instead."""
    keys: list[Any] = list(
        map(add, map(mul, map(sum, sources), itertools.repeat(m)), map(sum, targets))
    )
    sizes = map(mul, map(len, sources), map(len, targets))
    for i in itertools.compress(itertools.count(), map((1).__ne__, sizes)):
        keys[i] = (sources[i], targets[i])
    return keys


def _pairs_of(key: tuple[tuple[int, ...], tuple[int, ...]], m: int) -> list[int]:
    """The sentence pairs (cross product, source-major) of a bisegment that is not
    one-to-one, as ``s * m + t``."""
    src, tgt = key
    return [s * m + t for s in src for t in tgt]


def _pair_set(keys: list[Any], m: int) -> set[int]:
    """A': the sentence pairs of all the bisegments (by their strict keys); the keys
    that are not one-to-one (tuples) are found at C speed."""
    out = set(keys)
    tuples = map(isinstance, keys, itertools.repeat(tuple))
    for i in itertools.compress(itertools.count(), tuples):
        out.discard(keys[i])
        out.update(_pairs_of(keys[i], m))
    return out


def _lax(keys: list[Any], strict: list[bool], other: set[int], m: int) -> list[bool]:
    """For each bisegment (by its strict key): strict hit, or one of its pairs is in
    ``other``. Pairs are recomputed here rather than kept (memory at 100,000
    bisegments)."""
    out = strict.copy()
    for i in itertools.compress(itertools.count(), map(not_, strict)):
        key = keys[i]
        if isinstance(key, tuple):
            out[i] = not other.isdisjoint(_pairs_of(key, m))
        else:
            out[i] = key in other
    return out


def _products(
    keys: set[int], m: int, source: Sequence[int], target: Sequence[int]
) -> Iterator[int]:
    """|s|·|t| of each pair ``s * m + t`` of ``keys``, in the set's order, with
    |s| from ``source`` and |t| from ``target`` (words or characters), at C speed."""
    s = map(source.__getitem__, map(floordiv, keys, itertools.repeat(m)))
    t = map(target.__getitem__, map(mod, keys, itertools.repeat(m)))
    return map(mul, s, t)


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
    g_keys = _strict_keys(gold.sources, gold.targets, m)
    r_keys = _strict_keys(run.sources, run.targets, m)
    g_set, r_set = set(g_keys), set(r_keys)
    common = len(g_set & r_set)
    alignment = Counts(common, len(r_set), common, len(g_set))
    r_strict = list(map(g_set.__contains__, r_keys))
    g_strict = list(map(r_set.__contains__, g_keys))
    del g_set, r_set

    g_pairs, r_pairs = _pair_set(g_keys, m), _pair_set(r_keys, m)
    # the run's pairs weighed once (a set is walked in the same order each time);
    # the common ones are picked out of them
    common_pairs = list(map(g_pairs.__contains__, r_pairs))
    n_both = sum(common_pairs)
    sentence = Counts(n_both, len(r_pairs), n_both, len(g_pairs))
    u = units
    w_run = list(_products(r_pairs, m, u.source_words, u.target_words))
    c_run = list(_products(r_pairs, m, u.source_chars, u.target_chars))
    w_gold = sum(_products(g_pairs, m, u.source_words, u.target_words))
    c_gold = sum(_products(g_pairs, m, u.source_chars, u.target_chars))
    w_both = sum(itertools.compress(w_run, common_pairs))
    c_both = sum(itertools.compress(c_run, common_pairs))
    word = Counts(w_both, sum(w_run), w_both, w_gold)
    char = Counts(c_both, sum(c_run), c_both, c_gold)
    del w_run, c_run, common_pairs

    r_lax = _lax(r_keys, r_strict, g_pairs, m)
    g_lax = _lax(g_keys, g_strict, r_pairs, m)
    del g_pairs, r_pairs, g_keys, r_keys
    # gold bisegments with both sides (the others are no target of recall)
    g_full = list(map(bool, map(mul, map(len, gold.sources), map(len, gold.targets))))
    n_full, n_run = sum(g_full), len(run.sources)
    strict = Counts(sum(r_strict), n_run, sum(map(and_, g_strict, g_full)), n_full)
    lax = Counts(sum(r_lax), n_run, sum(map(and_, g_lax, g_full)), n_full)

    counts = LevelCounts(doc.name, (alignment, sentence, word, char, strict, lax))
    return Outcome(
        counts, _misses(run, r_strict, r_lax), _misses(gold, g_strict, g_lax)
    )


def _misses(
    alignment: Alignment, strict: list[bool], lax: list[bool]
) -> tuple[tuple[Bisegment, bool], ...]:
    """The bisegments that are no strict hit, each with its lax hit."""
    a = alignment
    return tuple(
        (Bisegment(a.sources[i], a.targets[i], a.lines[i]), lax[i])
        for i in itertools.compress(itertools.count(), map(not_, strict))
    )
