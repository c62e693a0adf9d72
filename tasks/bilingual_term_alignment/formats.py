"""Reading term lists, gold dictionaries and runs (see the package docstring).

Every file is decoded like :func:`tasks.common.textio.read_lines` (BOM, CRLF, NFC,
UTF-8 errors with line numbers); each field is then trimmed and matching is exact and
case-sensitive. Runs are validated against the *public* term lists only, so no run
error can reveal the gold.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from operator import itemgetter
from typing import Literal

from tasks.base import FormatError, ProblemCollector
from tasks.common.textio import decode_text, read_lines

Pair = tuple[str, str]

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
    """The public inputs: source terms D1 and target terms D2 (distinct, normalised)."""

    source_terms: frozenset[str]
    target_terms: frozenset[str]

    @property
    def cap(self) -> float:
        """Mean list size (|D1| + |D2|) / 2; multiply by ``cap_factor``."""
        return (len(self.source_terms) + len(self.target_terms)) / 2


@dataclass(frozen=True, slots=True)
class Gold:
    """The gold dictionary D1,2 as a set, plus its pairs in sorted order (the order
    of ``detail["gold_ranks"]``)."""

    pairs: frozenset[Pair]
    sorted_pairs: tuple[Pair, ...]
    n_duplicates: int


@dataclass(frozen=True, slots=True)
class Run:
    """A parsed run: distinct in-vocabulary pairs in rank order, and what was removed."""

    pairs: tuple[Pair, ...]
    n_lines: int
    n_duplicates: int
    n_oov: int
    n_truncated: int
    warnings: tuple[str, ...]


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
class _Pairs:
    """Pairs in file order; ``numbers[i]`` is the line of ``pairs[i]`` (None when
    pair i is on line i + 1, i.e. the file has no blank line)."""

    pairs: list[Pair]
    numbers: list[int] | None

    def line(self, index: int) -> int:
        return self.numbers[index] if self.numbers is not None else index + 1


def _split_pairs(data: bytes, file: str) -> _Pairs:
    """Pairs with their line numbers; FormatError listing every bad line (the first
    ones quoted). Blank lines are skipped.

    Fast path (a well-formed file): the separators alone, in file order, read
    TAB (LF TAB)* -- every line holds exactly one tab -- so the text is split once
    and stripped at C speed. Anything else takes the line-by-line path that names
    the problems.
    """
    text = _decode_text(data, file)
    if not text:
        return _Pairs([], None)
    separators = data.translate(None, _NOT_SEPARATORS)
    if data.endswith(b"\n"):  # the final newline ends the last line
        separators = separators[:-1]
    if separators == b"\t\n" * (len(separators) // 2) + b"\t":
        fields = list(map(str.strip, text.replace("\n", "\t").split("\t")))
        if all(fields):  # no empty field (none is falsy)
            return _Pairs(list(zip(fields[0::2], fields[1::2], strict=True)), None)
    return _split_pairs_slowly([line.split("\t") for line in text.split("\n")], file)


def _split_pairs_slowly(rows: list[list[str]], file: str) -> _Pairs:
    problems = ProblemCollector()
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
    problems.raise_if_any()
    return _Pairs(pairs, numbers)


def _lines_note(lines: list[int], total: int) -> str:
    shown = ", ".join(str(n) for n in lines[:MAX_QUOTED_LINES])
    return f"line(s) {shown}" + (" ..." if total > MAX_QUOTED_LINES else "")


def parse_gold(data: bytes, file: str, inputs: Inputs) -> Gold:
    """Gold ``source<TAB>target`` lines, a set. Errors may quote gold lines (only
    organisers see them): bad lines, pairs outside D1 x D2, an empty file."""
    problems = ProblemCollector()
    seen: set[Pair] = set()
    n_duplicates = 0
    parsed = _split_pairs(data, file)
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
    return Gold(frozenset(seen), tuple(sorted(seen)), n_duplicates)


def parse_run(data: bytes, file: str, inputs: Inputs, settings: Settings) -> Run:
    """A run: pairs in rank order. Bad lines -> FormatError (nothing scored).

    Repeats of a pair are removed (the first occurrence keeps its rank) and counted;
    then pairs outside D1 x D2 are removed and counted; both cost no rank. Then the cap.
    """
    parsed = _split_pairs(data, file)
    pairs = parsed.pairs
    # first occurrences, in rank order (a set's size tells at C speed if any repeats)
    unique = pairs if len(set(pairs)) == len(pairs) else list(dict.fromkeys(pairs))
    n_dup = len(pairs) - len(unique)
    sources, targets = inputs.source_terms, inputs.target_terms
    if sources.issuperset(map(itemgetter(0), unique)) and targets.issuperset(
        map(itemgetter(1), unique)
    ):
        kept = unique
    else:
        kept = [p for p in unique if p[0] in sources and p[1] in targets]
    n_oov = len(unique) - len(kept)
    dup_lines: list[int] = []
    oov_lines: list[int] = []
    if n_dup or n_oov:
        seen: set[Pair] = set()
        for index, pair in enumerate(pairs):
            if pair in seen:
                if len(dup_lines) < MAX_QUOTED_LINES:
                    dup_lines.append(parsed.line(index))
            else:
                seen.add(pair)
                if (pair[0] not in sources or pair[1] not in targets) and len(
                    oov_lines
                ) < MAX_QUOTED_LINES:
                    oov_lines.append(parsed.line(index))
            if len(dup_lines) >= min(n_dup, MAX_QUOTED_LINES) and len(oov_lines) >= min(
                n_oov, MAX_QUOTED_LINES
            ):
                break
    warnings: list[str] = []
    if n_dup:
        warnings.append(
            f"{n_dup} repeated pair(s) removed, only the first occurrence counts "
            f"({_lines_note(dup_lines, n_dup)})"
        )
    if n_oov:
        warnings.append(
            f"{n_oov} pair(s) outside the source x target term lists removed "
            f"({_lines_note(oov_lines, n_oov)})"
        )
    cap = cap_size(inputs, settings)
    n_truncated = 0
    if len(kept) > cap:
        if settings.cap_policy == "reject":
            raise FormatError.at(
                file,
                None,
                f"the run ranks {len(kept):,} distinct in-vocabulary pairs, more than the "
                f"limit of {cap:,} ({settings.cap_factor:g} x the mean size of the two term "
                "lists); submit at most that many",
            )
        n_truncated = len(kept) - cap
        kept = kept[:cap]
        warnings.append(
            f"the run was cut to the limit of {cap:,} pairs ({n_truncated:,} dropped)"
        )
    return Run(
        pairs=tuple(kept),
        n_lines=len(pairs),
        n_duplicates=n_dup,
        n_oov=n_oov,
        n_truncated=n_truncated,
        warnings=tuple(warnings),
    )
