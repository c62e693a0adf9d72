"""Probe sets, runs, references and judgements: parsing and TSV export.

Probe TSV (one probe per line, blank lines ignored, optional header ``id<TAB>word...``)::

    id<TAB>word<TAB>pos<TAB>freq_class<TAB>sentence[<TAB>ref1|ref2]

References TSV (private gold): ``id<TAB>ref1|ref2`` (``id`` alone = no reference).
Judgements TSV: ``id<TAB>tag``. Run: one translation per probe, same order.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from tasks.base import FormatError, ProblemCollector
from tasks.common.textio import read_lines
from tasks.mt_lexicon_probe.tags import JudgementMemory, Tag, parse_tag


class Pos(enum.StrEnum):
    ADJ = "adj"
    NOUN = "noun"
    VERB = "verb"


class FreqClass(enum.StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


MAX_LINE = 10_000
HEADER = ("id", "word", "pos", "freq_class", "sentence")


@dataclass(frozen=True, slots=True)
class Probe:
    id: str
    word: str
    pos: Pos
    freq_class: FreqClass
    sentence: str
    references: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ProbeSet:
    probes: tuple[Probe, ...]

    def __len__(self) -> int:
        return len(self.probes)

    def by_id(self) -> dict[str, Probe]:
        return {p.id: p for p in self.probes}

    @property
    def has_references(self) -> bool:
        return any(p.references for p in self.probes)

    def without_references(self) -> ProbeSet:
        return ProbeSet(tuple(_with_refs(p, ()) for p in self.probes))

    def with_references(self, refs: Mapping[str, tuple[str, ...]]) -> ProbeSet:
        return ProbeSet(tuple(_with_refs(p, refs.get(p.id, ())) for p in self.probes))


def _with_refs(p: Probe, refs: tuple[str, ...]) -> Probe:
    return Probe(p.id, p.word, p.pos, p.freq_class, p.sentence, refs)


@dataclass(frozen=True, slots=True)
class Run:
    """One system's translations, ``translations[i]`` for ``probes[i]``."""

    translations: tuple[str, ...]
    warnings: tuple[str, ...] = field(default=())


def split_refs(text: str) -> tuple[str, ...]:
    out: list[str] = []
    for ref in text.split("|"):
        ref = " ".join(ref.split())
        if ref and ref not in out:
            out.append(ref)
    return tuple(out)


def parse_probes(data: bytes, file: str, *, allow_references: bool = True) -> ProbeSet:
    """Parse a probe TSV; every problem is reported with its line."""
    problems = ProblemCollector()
    probes: list[Probe] = []
    seen: dict[str, int] = {}
    for line in read_lines(data, file, max_chars=MAX_LINE, keep_empty=False):
        cols = line.text.split("\t")
        if tuple(c.strip().lower() for c in cols[:5]) == HEADER and not probes:
            continue
        if len(cols) not in (5, 6):
            problems.add(
                file,
                line.number,
                f"expected 5 or 6 tab-separated columns (id, word, pos, freq_class, sentence[, references]), found {len(cols)}",
            )
            continue
        pid, word, pos, fc, sentence = (c.strip() for c in cols[:5])
        if not pid or any(ch.isspace() for ch in pid):
            problems.add(
                file,
                line.number,
                f"bad id {pid!r}: ids are non-empty and contain no blanks",
            )
            continue
        if pid in seen:
            problems.add(
                file, line.number, f"id {pid!r} already used on line {seen[pid]}"
            )
            continue
        seen[pid] = line.number
        if pos not in Pos.__members__.values():
            problems.add(
                file, line.number, f"pos {pos!r} is not one of adj, noun, verb"
            )
            continue
        if fc not in FreqClass.__members__.values():
            problems.add(
                file, line.number, f"freq_class {fc!r} is not one of high, medium, low"
            )
            continue
        if not word or not sentence:
            problems.add(file, line.number, "word and sentence must not be empty")
            continue
        refs = split_refs(cols[5]) if len(cols) == 6 else ()
        if refs and not allow_references:
            problems.add(
                file,
                line.number,
                "the public probe file must not contain reference translations (column 6); upload them as the private references file",
            )
            continue
        probes.append(Probe(pid, word, Pos(pos), FreqClass(fc), sentence, refs))
    if not probes and not problems.total:
        problems.add(file, None, "contains no probes")
    problems.raise_if_any()
    return ProbeSet(tuple(probes))


def parse_references(
    data: bytes, file: str, probes: ProbeSet
) -> dict[str, tuple[str, ...]]:
    """``id<TAB>ref1|ref2`` lines (blank lines ignored) -> {id: refs}."""
    problems = ProblemCollector()
    known = probes.by_id()
    out: dict[str, tuple[str, ...]] = {}
    lines: dict[str, int] = {}
    for line in read_lines(data, file, max_chars=MAX_LINE, keep_empty=False):
        pid, _, rest = line.text.partition("\t")
        pid = pid.strip()
        if pid not in known:
            problems.add(file, line.number, f"unknown probe id {pid!r}")
            continue
        if pid in lines:
            problems.add(
                file, line.number, f"id {pid!r} already given on line {lines[pid]}"
            )
            continue
        lines[pid] = line.number
        out[pid] = split_refs(rest)
    problems.raise_if_any()
    return out


def parse_run(data: bytes, file: str, probes: ProbeSet) -> Run:
    """One translation per probe line, in probe order; the count must match."""
    lines = read_lines(data, file, max_chars=MAX_LINE)
    n = len(probes)
    warnings: list[str] = []
    if len(lines) > n and all(not ln.text.strip() for ln in lines[n:]):
        warnings.append(f"ignored {len(lines) - n} blank line(s) after line {n}")
        lines = lines[:n]
    if len(lines) != n:
        if len(lines) < n:
            where = len(lines) + 1
            msg = (
                f"the run has {len(lines)} line(s) but the probe set has {n} probes: "
                f"line {where} (probe {probes.probes[len(lines)].id}) is missing; "
                "give exactly one translation per probe line, in order"
            )
        else:
            where = lines[n].number
            msg = (
                f"the run has {len(lines)} lines but the probe set has {n} probes: "
                f"line {where} and after have no probe; give exactly one "
                "translation per probe line, in order"
            )
        raise FormatError.at(file, where, msg)
    blank = sum(1 for ln in lines if not ln.text.strip())
    if n and blank == n:
        # Nothing to score (every share would be 0/0): refused, not scored as null.
        raise FormatError.at(file, 1, "the run has no translation: every line is empty")
    if blank:
        warnings.append(f"{blank} empty translation(s)")
    return Run(tuple(" ".join(ln.text.split()) for ln in lines), tuple(warnings))


def parse_judgements(data: bytes, file: str, probes: ProbeSet) -> dict[str, Tag]:
    """``id<TAB>tag`` lines, possibly partial; conflicting duplicates are errors."""
    problems = ProblemCollector()
    known = probes.by_id()
    out: dict[str, Tag] = {}
    where: dict[str, int] = {}
    valid = ", ".join(t.value for t in Tag)
    for line in read_lines(data, file, max_chars=MAX_LINE, keep_empty=False):
        cols = [c.strip() for c in line.text.split("\t")]
        if cols[:2] == ["id", "tag"] and not out:
            continue
        if len(cols) != 2:
            problems.add(
                file, line.number, f"expected id<TAB>tag, found {len(cols)} column(s)"
            )
            continue
        pid, raw = cols
        tag = parse_tag(raw)
        if pid not in known:
            problems.add(file, line.number, f"unknown probe id {pid!r}")
        elif tag is None:
            problems.add(file, line.number, f"unknown tag {raw!r} (valid: {valid})")
        elif pid in out and out[pid] != tag:
            problems.add(
                file,
                line.number,
                f"id {pid!r} tagged {out[pid].value} on line {where[pid]} and {tag.value} here",
            )
        else:
            out[pid] = tag
            where.setdefault(pid, line.number)
    problems.raise_if_any()
    return out


def _clean(text: str) -> str:
    return " ".join(text.replace("|", "/").split())


def probes_to_tsv(probes: Iterable[Probe], *, references: bool = True) -> str:
    """Export; with ``references`` a sixth column holds the references joined by |."""
    rows = []
    for p in probes:
        cols = [
            p.id,
            _clean(p.word),
            p.pos.value,
            p.freq_class.value,
            _clean(p.sentence),
        ]
        if references and p.references:
            cols.append("|".join(_clean(r) for r in p.references))
        rows.append("\t".join(cols) + "\n")
    return "".join(rows)


def references_to_tsv(probes: Iterable[Probe]) -> str:
    return "".join(
        f"{p.id}\t{'|'.join(_clean(r) for r in p.references)}\n" for p in probes
    )


def judgements_to_tsv(judgements: Mapping[str, Tag]) -> str:
    return "".join(f"{pid}\t{tag.value}\n" for pid, tag in judgements.items())


def parse_memory(data: bytes, file: str, inputs: ProbeSet) -> JudgementMemory:
    """The judgement memory: ``id<TAB>translation<TAB>tag`` lines (other systems'
    judged translations)."""
    problems = ProblemCollector()
    known = inputs.by_id()
    records: list[tuple[str, str, Tag]] = []
    for line in read_lines(data, file, keep_empty=False):
        cols = line.text.split("\t")
        tag = parse_tag(cols[-1]) if len(cols) == 3 else None
        if tag is None or cols[0].strip() not in known:
            problems.add(file, line.number, "expected known id<TAB>translation<TAB>tag")
            continue
        records.append((cols[0].strip(), cols[1], tag))
    problems.raise_if_any()
    return JudgementMemory.build(records)
