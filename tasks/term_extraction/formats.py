"""Settings, gold and run files of ``term_extraction``: parsing and normalisation."""

from __future__ import annotations

import csv
import json
import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from tasks.base import FormatError, ProblemCollector
from tasks.common.textio import Line, decode_text, read_lines

MAX_LINE_CHARS = 1000
RUN_FORMATS = ("csv", "json")
#: The gold labels the type knows (ACTER's): per-label recall and ``exclude_labels``
#: name them; a gold line with another label is refused.
LABELS = ("Specific_Term", "Common_Term", "OOD_Term", "Named_Entity")
_CSV_LINE = re.compile(r"^\s*\d+\s*,(.*)$")


@dataclass(frozen=True, slots=True)
class TermExtractionSettings:
    """Task settings (all optional).

    - ``tau``: TermoMeter's threshold (paper: 0.4).
    - ``casefold``: compare case-insensitively (``str.casefold`` on both sides).
    - ``mode``: ``"default"`` (normalised strings) or ``"termeval"`` (run lowercased,
      gold as written, exact match: TermEval 2020's rule) for the classic P/R/F.
    - ``cap``: evaluate only the first N terms of each run (CESART); None = all.
    - ``max_terms``: reject runs with more terms than this (an error naming the line).
    - ``exclude_labels``: gold terms with these labels are dropped (e.g.
      ``["Named_Entity"]`` for TermEval's "without named entities").
    - ``accept_formats``: also accept runs as CSV ``index,term`` (``"csv"``) or a JSON
      list of strings (``"json"``).
    - ``json_list``: for JSON runs that are a list of term lists (the ate_nobi
      predictions hold one list per test language), the 0-based list to score.
    - ``ranked``: the line order of runs without scores is a ranking.
    """

    tau: float = 0.4
    casefold: bool = False
    mode: Literal["default", "termeval"] = "default"
    cap: int | None = None
    max_terms: int | None = 100_000
    exclude_labels: tuple[str, ...] = ()
    accept_formats: tuple[str, ...] = ()
    json_list: int | None = None
    ranked: bool = False

    def __post_init__(self) -> None:
        if not 0.0 <= self.tau <= 1.0:
            raise ValueError(f"tau: {self.tau} is not between 0 and 1")
        if self.cap is not None and self.cap < 1:
            raise ValueError(f"cap: {self.cap} must be at least 1")
        if self.max_terms is not None and self.max_terms < 1:
            raise ValueError(f"max_terms: {self.max_terms} must be at least 1")
        if self.json_list is not None and self.json_list < 0:
            raise ValueError(f"json_list: {self.json_list} must be 0 or more")
        bad = sorted(set(self.accept_formats) - set(RUN_FORMATS))
        if bad:
            raise ValueError(
                f"accept_formats: unknown format(s) {', '.join(bad)} (csv, json)"
            )


def normalise(term: str, casefold: bool) -> str:
    """Trim and collapse inner whitespace (NFC is done when decoding); casefold."""
    text = " ".join(term.split())
    return text.casefold() if casefold else text


@dataclass(frozen=True, slots=True)
class GoldList:
    """The gold terms R.

    ``terms``/``labels``/``lines``: normalised, distinct, in file order (default mode
    and TermoMeter). ``written``/``written_labels``: the terms as written (TermEval
    mode). ``merged_lines``: groups of gold lines that became one term (show the
    organiser at upload).
    """

    terms: tuple[str, ...]
    labels: tuple[str | None, ...]
    lines: tuple[int, ...]
    written: tuple[str, ...]
    written_labels: tuple[str | None, ...]
    merged_lines: tuple[tuple[int, ...], ...]
    n_excluded: int

    def merge_warnings(self) -> tuple[str, ...]:
        """Readable notes for the organiser: which gold lines merged."""
        return tuple(
            f"gold lines {', '.join(str(n) for n in group)} are one term after "
            "normalisation (whitespace/case)"
            for group in self.merged_lines
        )


@dataclass(frozen=True, slots=True)
class RunList:
    """The output terms O in rank order (by score when scored, else line order)."""

    terms: tuple[str, ...]  # normalised, distinct
    written: tuple[str, ...]  # lowercased as written, distinct (TermEval mode)
    scored: bool
    n_terms_read: int
    n_duplicates: int
    n_duplicates_written: int
    source_format: str


def parse_gold(data: bytes, file: str, settings: TermExtractionSettings) -> GoldList:
    """``term`` or ``term<TAB>label`` per line, ``label`` one of :data:`LABELS`;
    blank lines ignored, a line of only tabs and spaces refused."""
    lines = read_lines(data, file, max_chars=MAX_LINE_CHARS, keep_empty=True)
    problems = ProblemCollector()
    excluded = set(settings.exclude_labels)
    first: dict[str, int] = {}
    groups: dict[str, list[int]] = {}
    terms: list[str] = []
    labels: list[str | None] = []
    term_lines: list[int] = []
    written: dict[str, str | None] = {}
    n_excluded = 0
    for line in lines:
        if not line.text.strip():
            if "\t" in line.text:
                problems.add(
                    file,
                    line.number,
                    "a line of only a tab: expected 'term' or 'term<TAB>label'",
                )
            continue
        fields = line.text.split("\t")
        if len(fields) > 2:
            problems.add(file, line.number, "expected 'term' or 'term<TAB>label'")
            continue
        label = fields[1].strip() or None if len(fields) == 2 else None
        if not fields[0].strip():
            problems.add(file, line.number, "empty term")
            continue
        if label is not None and label not in LABELS:
            problems.add(
                file,
                line.number,
                f"label {label!r} is not one of the task type's labels: "
                f"{', '.join(LABELS)}",
            )
            continue
        if label in excluded:
            n_excluded += 1
            continue
        written.setdefault(fields[0], label)
        term = normalise(fields[0], settings.casefold)
        if term in first:
            groups[term].append(line.number)
            continue
        first[term] = line.number
        groups[term] = [line.number]
        terms.append(term)
        labels.append(label)
        term_lines.append(line.number)
    problems.raise_if_any()
    if not terms:
        raise FormatError.at(file, None, "the gold list has no terms")
    return GoldList(
        terms=tuple(terms),
        labels=tuple(labels),
        lines=tuple(term_lines),
        written=tuple(written),
        written_labels=tuple(written.values()),
        merged_lines=tuple(tuple(g) for g in groups.values() if len(g) > 1),
        n_excluded=n_excluded,
    )


def parse_run(data: bytes, file: str, settings: TermExtractionSettings) -> RunList:
    """One term per line, optionally ``term<TAB>score``; CSV/JSON if enabled."""
    entries, source_format = _read_entries(data, file, settings)
    if settings.max_terms is not None and len(entries) > settings.max_terms:
        number = entries[settings.max_terms][0]
        raise FormatError.at(
            file, number, f"more than {settings.max_terms:,} terms (the task's limit)"
        )
    problems = ProblemCollector()
    has_tab = [("\t" in text) for _, text in entries]
    scored = any(has_tab)
    items: list[tuple[float, int, str]] = []
    for position, (number, text) in enumerate(entries):
        score = 0.0
        if scored:
            fields = text.split("\t")
            if len(fields) != 2:
                problems.add(
                    file, number, "expected 'term<TAB>score' (as the other lines)"
                )
                continue
            text, raw_score = fields
            try:
                score = float(raw_score)
            except ValueError:
                score = math.nan
            if not math.isfinite(score):
                problems.add(
                    file, number, f"score {raw_score.strip()!r} is not a number"
                )
                continue
        if not text.strip():
            problems.add(file, number, "empty term")
            continue
        items.append((-score, position, text))
    problems.raise_if_any()
    if scored:
        items.sort()
    # TermEval mode lowercases run terms; TermoMeter then sees them lowercased too.
    lower = settings.mode == "termeval"
    terms = list(
        dict.fromkeys(
            normalise(text.lower() if lower else text, settings.casefold)
            for _, _, text in items
        )
    )
    written = list(dict.fromkeys(text.lower() for _, _, text in items))
    return RunList(
        terms=tuple(terms),
        written=tuple(written),
        scored=scored,
        n_terms_read=len(items),
        n_duplicates=len(items) - len(terms),
        n_duplicates_written=len(items) - len(written),
        source_format=source_format,
    )


def _read_entries(
    data: bytes, file: str, settings: TermExtractionSettings
) -> tuple[list[tuple[int, str]], str]:
    """(line number, text) of every non-empty entry, and the format found."""
    formats = set(settings.accept_formats)
    if "json" in formats and data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"["):
        return _read_json(data, file, settings.json_list), "json"
    lines = read_lines(data, file, max_chars=MAX_LINE_CHARS, keep_empty=False)
    if "csv" in formats and lines and _CSV_LINE.match(lines[0].text):
        return _read_csv(lines, file), "csv"
    return [(line.number, line.text) for line in lines], "lines"


def _read_csv(lines: list[Line], file: str) -> list[tuple[int, str]]:
    """``index,term`` rows; a term with commas may be quoted (``1,"13,9 pmol"``) or
    not (everything after the first comma is the term)."""
    problems = ProblemCollector()
    entries: list[tuple[int, str]] = []
    for line in lines:
        if _CSV_LINE.match(line.text) is None:
            problems.add(file, line.number, "expected 'index,term' (as the first line)")
            continue
        try:
            fields = next(csv.reader([line.text], strict=True))
        except csv.Error as exc:
            problems.add(file, line.number, f"bad CSV quoting: {exc}")
            continue
        term = fields[1] if len(fields) == 2 else line.text.split(",", 1)[1]
        if term.strip():
            entries.append((line.number, term))
    problems.raise_if_any()
    return entries


def _read_json(data: bytes, file: str, json_list: int | None) -> list[tuple[int, str]]:
    """A JSON list of strings; with ``json_list``, that item of a list of lists."""
    text = decode_text(data, file)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError.at(file, exc.lineno, f"invalid JSON: {exc.msg}") from None
    if json_list is not None:
        if not isinstance(value, list) or not all(isinstance(v, list) for v in value):
            raise FormatError.at(file, None, "expected a JSON list of term lists")
        if json_list >= len(value):
            raise FormatError.at(
                file,
                None,
                f"has {len(value)} term list(s); list {json_list} is missing",
            )
        value = value[json_list]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise FormatError.at(file, None, "expected a JSON list of strings")
    problems = ProblemCollector()
    entries: list[tuple[int, str]] = []
    for i, item in enumerate(value, start=1):
        if len(item) > MAX_LINE_CHARS:
            problems.add(
                file,
                None,
                f"item {i} is {len(item):,} characters long (limit {MAX_LINE_CHARS:,})",
            )
        elif "\n" in item or "\t" in item:
            problems.add(file, None, f"item {i} contains a tab or a line break")
        elif item.strip():
            entries.append((i, unicodedata.normalize("NFC", item)))
    problems.raise_if_any()
    return entries
