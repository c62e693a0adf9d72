"""Reading term lists and gold dictionaries, and runs as text (:mod:`.runs` reads
runs, through the text way here when their bytes cannot be read directly); see the
package docstring.

Every file is decoded like :func:`tasks.common.textio.read_lines` (BOM, CRLF, NFC,
UTF-8 errors with line numbers); each field is then trimmed and matching is exact and
case-sensitive. Runs are validated against the *public* term lists only, so no run
error can reveal the gold.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from tasks.base import FormatError, ProblemCollector
from tasks.common.textio import decode_text, read_lines

from .vocabulary import Pair, Vocabulary

#: Line numbers quoted in warnings (duplicates, OOV pairs).
MAX_QUOTED_LINES = 5


@dataclass(frozen=True, slots=True)
class Settings:
    """Task settings (organiser-chosen, stored with the task).

    - ``cap_policy``: what to do with a run longer than the cap: ``"reject"`` it at
      upload, or ``"truncate"`` it to the cap (with a warning).
    - ``cap_factor``: cap = floor(cap_factor * (|D1| + |D2|) / 2), the paper's ceiling of
      10 candidate pairs per term. It counts the ranked pairs (after duplicates and OOV
      pairs are removed).
    - ``detail_candidates``: wrong candidates kept per gold source term in the
      organiser-only detail (the closest ones, by rank).
    """

    cap_policy: Literal["reject", "truncate"] = "reject"
    cap_factor: float = 10.0
    detail_candidates: int = 3

    def __post_init__(self) -> None:
        if not self.cap_factor > 0:
            raise ValueError(f"cap_factor: must be positive, got {self.cap_factor!r}")
        if self.detail_candidates < 0:
            raise ValueError("detail_candidates: must be zero or more")


@dataclass(frozen=True, slots=True)
class Inputs:
    """The public inputs: source terms D1 and target terms D2 (distinct, normalised),
    and both numbered (:mod:`.vocabulary`)."""

    source_terms: frozenset[str]
    target_terms: frozenset[str]
    vocabulary: Vocabulary = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        vocabulary = Vocabulary.of(self.source_terms, self.target_terms)
        object.__setattr__(self, "vocabulary", vocabulary)

    @property
    def cap(self) -> float:
        """Mean list size (|D1| + |D2|) / 2; multiply by ``cap_factor``."""
        return (len(self.source_terms) + len(self.target_terms)) / 2


@dataclass(frozen=True, slots=True)
class Gold:
    """The gold dictionary D1,2 as a set, plus its pairs in sorted order (the order
    of ``detail["gold_ranks"]``); the same as codes of the inputs' vocabulary, and
    ``row_sizes``: each gold source term's row -> its number of gold translations
    m_s, in row (= sorted term) order."""

    pairs: frozenset[Pair]
    sorted_pairs: tuple[Pair, ...]
    n_duplicates: int
    codes: frozenset[int]
    sorted_codes: tuple[int, ...]
    row_sizes: dict[int, int]

    @classmethod
    def of(
        cls, pairs: Iterable[Pair], vocabulary: Vocabulary, n_duplicates: int = 0
    ) -> Gold:
        """The gold of these pairs of D1 x D2 (a set)."""
        sorted_pairs = tuple(sorted(set(pairs)))
        sorted_codes = tuple(vocabulary.codes(sorted_pairs))  # sorted too
        row_sizes: dict[int, int] = {}
        for code in sorted_codes:
            row = vocabulary.row(code)
            row_sizes[row] = row_sizes.get(row, 0) + 1
        return cls(
            pairs=frozenset(sorted_pairs),
            sorted_pairs=sorted_pairs,
            n_duplicates=n_duplicates,
            codes=frozenset(sorted_codes),
            sorted_codes=sorted_codes,
            row_sizes=row_sizes,
        )


@dataclass(frozen=True, slots=True)
class Run:
    """A parsed run: the codes of its distinct in-vocabulary pairs in rank order
    (:mod:`.vocabulary`), ``rows[k]`` the row of the source term of ``codes[k]``,
    and what was removed. Both sequences are not to be changed."""

    codes: Sequence[int]
    rows: Sequence[int]
    vocabulary: Vocabulary = field(repr=False, compare=False)
    n_lines: int
    n_duplicates: int
    n_oov: int
    n_truncated: int
    warnings: tuple[str, ...]

    @property
    def pairs(self) -> tuple[Pair, ...]:
        """The ranked pairs as terms (built on each call)."""
        return self.vocabulary.pairs(self.codes)


def cap_size(inputs: Inputs, settings: Settings) -> int:
    """Largest allowed number of ranked pairs."""
    return int(settings.cap_factor * inputs.cap)


def parse_term_list(data: bytes, file: str) -> frozenset[str]:
    """One term per line; blank lines skipped; a term may not contain a tab."""
    problems = ProblemCollector()
    terms: set[str] = set()
    for line in read_lines(data, file):
        term = line.text.strip()
        if not term:
            continue
        if "\t" in term:
            problems.add(file, line.number, "a term may not contain a tab")
            continue
        terms.add(term)
    problems.raise_if_any()
    if not terms:
        raise FormatError.at(file, None, "the term list is empty")
    return frozenset(terms)


#: Every byte but TAB and LF: ``data.translate(None, _NOT_SEPARATORS)`` keeps the
#: file's field and line separators in order (decoding, NFC and CRLF never change
#: them).
_NOT_SEPARATORS = bytes(b for b in range(256) if b not in (9, 10))


def one_tab_a_line(data: bytes) -> bool:
    """Whether every line of the file holds exactly one tab (so no line is blank
    and the file is not empty): its separators alone, in file order, read
    TAB (LF TAB)*, a final newline ending the last line."""
    separators = data.translate(None, _NOT_SEPARATORS)
    if data.endswith(b"\n"):
        separators = separators[:-1]
    return separators == b"\t\n" * (len(separators) // 2) + b"\t"


def _decode_text(data: bytes, file: str) -> str:
    """The file decoded as :func:`tasks.common.textio.read_lines` does (BOM, CRLF,
    NFC; UTF-8 and NUL errors with line numbers), without the final newline, over the
    whole text at once: NFC never composes across a newline (a starter), so this is
    the same as per-line normalisation, and much faster on long runs."""
    text = decode_text(data, file)
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
    return text[:-1] if text.endswith("\n") else text


@dataclass(frozen=True, slots=True)
class PairLines:
    """Pairs in file order; ``numbers[i]`` is the line of ``pairs[i]`` (None when
    pair i is on line i + 1, i.e. the file has no blank line)."""

    pairs: list[Pair]
    numbers: list[int] | None

    def line(self, index: int) -> int:
        return self.numbers[index] if self.numbers is not None else index + 1


def split_pairs(
    data: bytes, file: str, problems: ProblemCollector | None = None
) -> PairLines:
    """Pairs with their line numbers; FormatError listing every bad line (the first
    ones quoted). Blank lines are skipped. With ``problems`` the bad lines are added
    to it instead and the good lines returned (the caller goes on checking them and
    raises once, with every kind of problem).

    Fast path (a well-formed file, :func:`one_tab_a_line`): the text is split once
    and stripped at C speed. Anything else takes the line-by-line path that names
    the problems.
    """
    text = _decode_text(data, file)
    if not text:
        return PairLines([], None)
    if one_tab_a_line(data):
        fields = list(map(str.strip, text.replace("\n", "\t").split("\t")))
        if all(fields):  # no empty field (none is falsy)
            return PairLines(list(zip(fields[0::2], fields[1::2], strict=True)), None)
    return _split_pairs_slowly(
        [line.split("\t") for line in text.split("\n")], file, problems
    )


def _split_pairs_slowly(
    rows: list[list[str]], file: str, collector: ProblemCollector | None = None
) -> PairLines:
    problems = ProblemCollector() if collector is None else collector
    pairs: list[Pair] = []
    numbers: list[int] = []
    for number, fields in enumerate(rows, start=1):
        if len(fields) != 2:
            if len(fields) == 1 and not fields[0].strip():
                continue
            if len(fields) == 1:
                problems.add(file, number, "no tab: expected source<TAB>target")
            else:
                problems.add(
                    file,
                    number,
                    f"{len(fields)} tab-separated fields: expected exactly two "
                    "(source<TAB>target, no score column)",
                )
            continue
        source, target = fields[0].strip(), fields[1].strip()
        if not source or not target:
            side = "source" if not source else "target"
            problems.add(file, number, f"empty {side} term")
            continue
        pairs.append((source, target))
        numbers.append(number)
    if collector is None:
        problems.raise_if_any()
    return PairLines(pairs, numbers)


def parse_gold(data: bytes, file: str, inputs: Inputs) -> Gold:
    """Gold ``source<TAB>target`` lines, a set. Errors may quote gold lines (only
    organisers see them): every bad line and every pair outside D1 x D2, together
    (one FormatError, as a run's check), or an empty file."""
    problems = ProblemCollector()
    seen: set[Pair] = set()
    n_duplicates = 0
    parsed = split_pairs(data, file, problems)
    for index, pair in enumerate(parsed.pairs):
        number = parsed.line(index)
        if pair[0] not in inputs.source_terms or pair[1] not in inputs.target_terms:
            side = "source" if pair[0] not in inputs.source_terms else "target"
            problems.add(
                file,
                number,
                f"{side} term of {pair[0]!r} -> {pair[1]!r} is not in the {side} term list",
            )
            continue
        if pair in seen:
            n_duplicates += 1
        seen.add(pair)
    problems.raise_if_any()
    if not seen:
        raise FormatError.at(file, None, "the gold dictionary is empty")
    return Gold.of(seen, inputs.vocabulary, n_duplicates)
