"""The paper's judgement tags, automatic tagging and the judgement memory.

Volk (1997), seed ``004_50c8345678ce5bb6``, section 2.3: every (probe, translation)
gets one tag. Only ``u`` can be set automatically; a translation containing one of the
organiser's reference translations is *proposed* as ``c`` (kept distinct from a
confirmed ``c``); a judgement already given for the same (probe, normalised
translation) is reused (the paper's "translation list", section 5).
"""

from __future__ import annotations

import enum
import functools
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


class Tag(enum.StrEnum):
    """One judgement tag; the value is the paper's abbreviation."""

    UNKNOWN = "u"
    WRONG = "w"
    MISSING = "m"
    WRONG_FORM = "wf"
    SEGMENTED = "s"
    INTERFIX = "f"
    WRONG_DETERMINER = "wd"
    CORRECT = "c"

    @property
    def label(self) -> str:
        return _LABELS[self][0]

    @property
    def description(self) -> str:
        return _LABELS[self][1]

    @property
    def shortcut(self) -> str:
        """One key per tag for keyboard-driven annotation: ``1`` .. ``8``."""
        return str(list(Tag).index(self) + 1)

    @property
    def nouns_only(self) -> bool:
        return self in (Tag.INTERFIX, Tag.WRONG_DETERMINER)


_LABELS: dict[Tag, tuple[str, str]] = {
    Tag.UNKNOWN: ("unknown word", "the source word is copied into the translation"),
    Tag.WRONG: ("wrong translation", "wrong segmentation or wrong lexicon entry"),
    Tag.MISSING: ("missing word", "the source word is not translated at all"),
    Tag.WRONG_FORM: (
        "wrong form",
        "found in the lexicon but in the wrong form or part of speech",
    ),
    Tag.SEGMENTED: (
        "sense-preserving segmentation",
        "units translated, meaning inferable",
    ),
    Tag.INTERFIX: (
        "missing interfix",
        "nouns: correct units, compound lacks an interfix",
    ),
    Tag.WRONG_DETERMINER: (
        "wrong determiner",
        "nouns: correct translation, wrong determiner",
    ),
    Tag.CORRECT: ("correct", "the translation is correct"),
}

#: Tags counted as negative by the three shares (paper, tables 1-3).
NOT_TRANSLATED = frozenset({Tag.UNKNOWN})
NOT_CORRECT = frozenset({Tag.UNKNOWN, Tag.WRONG, Tag.MISSING})
NOT_CORRECT_STRICT = frozenset({Tag.UNKNOWN, Tag.WRONG, Tag.MISSING, Tag.WRONG_FORM})


def parse_tag(text: str) -> Tag | None:
    """The tag spelt ``text`` (case and surrounding blanks ignored), else None."""
    try:
        return Tag(text.strip().lower())
    except ValueError:
        return None


class TagSource(enum.StrEnum):
    """Which mechanism settled an item."""

    JUDGEMENT = "judgement"  # an annotator's judgement for this run
    MEMORY = "memory"  # reused judgement of the same translation of the same probe
    AUTO_UNKNOWN = "auto_u"  # source word copied into the translation
    PROPOSED_CORRECT = "proposed_c"  # a reference occurs; awaits confirmation
    PENDING = "pending"  # awaits an annotator


_TOKEN = re.compile(r"\w+(?:[-'\u2019]\w+)*")


def tokens(text: str) -> tuple[str, ...]:
    """Word tokens of ``text``: NFC, case-folded, runs of word characters joined by
    internal hyphens or apostrophes (``Springen-Pferd`` is one token)."""
    return tuple(_TOKEN.findall(unicodedata.normalize("NFC", text).casefold()))


@functools.lru_cache(maxsize=65_536)
def _phrase(text: str) -> tuple[str, ...]:
    """Tokens of a source word or reference (the same few thousand for every run)."""
    return tokens(text)


def contains_phrase(haystack: tuple[str, ...], phrase: tuple[str, ...]) -> bool:
    """True when ``phrase`` occurs as contiguous whole tokens in ``haystack``."""
    n = len(phrase)
    if n == 0 or n > len(haystack):
        return False
    return any(haystack[i : i + n] == phrase for i in range(len(haystack) - n + 1))


def normalise_translation(text: str) -> str:
    """The judgement-memory key of a translation: its tokens joined by one space, so
    case, punctuation and spacing differences do not split identical translations
    (``"Dies ist hart."`` and ``"dies  ist hart"`` share one key)."""
    return " ".join(tokens(text))


def is_copied(source_word: str, translation: str) -> bool:
    """Spec rule for automatic ``u``: the source word appears as a whole token (or
    token sequence) in the translation, ignoring case."""
    return contains_phrase(tokens(translation), tokens(source_word))


def matching_reference(references: Iterable[str], translation: str) -> str | None:
    """The first reference occurring as whole tokens in the translation, or None."""
    have = tokens(translation)
    for ref in references:
        if contains_phrase(have, _phrase(ref)):
            return ref
    return None


@dataclass(frozen=True, slots=True)
class JudgementMemory:
    """(probe id, normalised translation) -> tag, reused across systems.

    Build it from all stored judgements of a test set; keys judged with *different*
    tags are conflicts and settle nothing (an annotator has to decide again).
    """

    entries: Mapping[tuple[str, str], Tag] = field(default_factory=dict)
    conflicts: frozenset[tuple[str, str]] = frozenset()

    @classmethod
    def build(cls, records: Iterable[tuple[str, str, Tag]]) -> JudgementMemory:
        """``records``: (probe id, raw translation, tag) triples in any order."""
        seen: dict[tuple[str, str], Tag] = {}
        conflicts: set[tuple[str, str]] = set()
        for probe_id, translation, tag in records:
            key = (probe_id, normalise_translation(translation))
            previous = seen.setdefault(key, tag)
            if previous != tag:
                conflicts.add(key)
        entries = {k: t for k, t in seen.items() if k not in conflicts}
        return cls(entries=entries, conflicts=frozenset(conflicts))

    def lookup(self, probe_id: str, translation: str) -> Tag | None:
        return self.entries.get((probe_id, normalise_translation(translation)))

    def __len__(self) -> int:
        return len(self.entries)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one probe's translation was settled. ``tag`` is None while pending;
    ``matched`` is the reference that made a proposal (or None)."""

    probe_id: str
    translation: str
    tag: Tag | None
    source: TagSource
    matched: str | None = None


def settle(
    probe_id: str,
    source_word: str,
    translation: str,
    *,
    references: Iterable[str] = (),
    judgement: Tag | None = None,
    memory: JudgementMemory | None = None,
) -> Outcome:
    """Tag one item, first rule that applies wins:

    1. an annotator's judgement for this run;
    2. the judgement memory (same probe, same normalised translation);
    3. ``u`` when the source word is copied (:func:`is_copied`);
    4. ``c`` *proposed* when a reference occurs (:func:`matching_reference`);
    5. pending.

    >>> settle("n1", "bank", "Die Bank kann nett sein.").source
    <TagSource.AUTO_UNKNOWN: 'auto_u'>
    """
    if judgement is not None:
        return Outcome(probe_id, translation, judgement, TagSource.JUDGEMENT)
    have = tokens(translation)  # once: memory key, copy test and references share it
    if memory is not None:
        remembered = memory.entries.get((probe_id, " ".join(have)))
        if remembered is not None:
            return Outcome(probe_id, translation, remembered, TagSource.MEMORY)
    if contains_phrase(have, _phrase(source_word)):
        return Outcome(probe_id, translation, Tag.UNKNOWN, TagSource.AUTO_UNKNOWN)
    for ref in references:
        if contains_phrase(have, _phrase(ref)):
            return Outcome(
                probe_id, translation, Tag.CORRECT, TagSource.PROPOSED_CORRECT, ref
            )
    return Outcome(probe_id, translation, None, TagSource.PENDING)
