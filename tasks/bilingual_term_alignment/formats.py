"""Reading term lists, gold dictionaries and runs (see the package docstring).

Every file goes through :func:`tasks.common.textio.read_lines` (BOM, CRLF, NFC, UTF-8
errors with line numbers); each field is then trimmed and matching is exact and
case-sensitive. Runs are validated against the *public* term lists only, so no run
error can reveal the gold.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tasks.base import FormatError, ProblemCollector
from tasks.common.textio import read_lines

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


def _split_pairs(data: bytes, file: str) -> list[tuple[int, Pair]]:
    """Pairs with their line numbers; FormatError listing every bad line (the first
    ones quoted). Blank lines are skipped."""
    problems = ProblemCollector()
    pairs: list[tuple[int, Pair]] = []
    for line in read_lines(data, file):
        text = line.text
        fields = text.split("\t")
        if len(fields) != 2:
            if not text.strip():
                continue
            if len(fields) == 1:
                problems.add(file, line.number, "no tab: expected source<TAB>target")
            else:
                problems.add(
                    file,
                    line.number,
                    f"{len(fields)} tab-separated fields: expected exactly two "
                    "(source<TAB>target, no score column)",
                )
            continue
        source, target = fields[0].strip(), fields[1].strip()
        if not source or not target:
            side = "source" if not source else "target"
            problems.add(file, line.number, f"empty {side} term")
            continue
        pairs.append((line.number, (source, target)))
    problems.raise_if_any()
    return pairs


def _lines_note(lines: list[int], total: int) -> str:
    shown = ", ".join(str(n) for n in lines[:MAX_QUOTED_LINES])
    return f"line(s) {shown}" + (" ..." if total > MAX_QUOTED_LINES else "")


def parse_gold(data: bytes, file: str, inputs: Inputs) -> Gold:
    """Gold ``source<TAB>target`` lines, a set. Errors may quote gold lines (only
    organisers see them): bad lines, pairs outside D1 x D2, an empty file."""
    problems = ProblemCollector()
    seen: set[Pair] = set()
    n_duplicates = 0
    for number, pair in _split_pairs(data, file):
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
    lines = _split_pairs(data, file)
    seen: set[Pair] = set()
    kept: list[Pair] = []
    dup_lines: list[int] = []
    oov_lines: list[int] = []
    n_dup = n_oov = 0
    sources, targets = inputs.source_terms, inputs.target_terms
    for number, pair in lines:
        if pair in seen:
            n_dup += 1
            if len(dup_lines) < MAX_QUOTED_LINES:
                dup_lines.append(number)
            continue
        seen.add(pair)
        if pair[0] not in sources or pair[1] not in targets:
            n_oov += 1
            if len(oov_lines) < MAX_QUOTED_LINES:
                oov_lines.append(number)
            continue
        kept.append(pair)
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
        n_lines=len(lines),
        n_duplicates=n_dup,
        n_oov=n_oov,
        n_truncated=n_truncated,
        warnings=tuple(warnings),
    )
