"""Parsing sentence files and alignment files (see the package docstring for formats)."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import add, itemgetter

from tasks.base import FormatError, ProblemCollector
from tasks.common.textio import Line, decode_text, read_lines, read_texts
from tasks.sentence_alignment.archive import is_zip, read_zip

#: Document names: what may appear before ``.src``/``.tgt``/``.align`` and after ``#``.
DOC_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,199}")
_BISEGMENT = re.compile(r"\s*\[([^\[\]]*)\]\s*:\s*\[([^\[\]]*)\]\s*(?::[^:]*)?")
_HEADER = re.compile(r"#\s*(\S*)\s*")
_INDEX = re.compile(r"[0-9]{1,12}")
MAX_SENTENCE_CHARS = 100_000


@dataclass(frozen=True, slots=True)
class Document:
    """One bitext: its name and its sentences (0-based indices into the tuples)."""

    name: str
    source: tuple[str, ...]
    target: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Bisegment:
    """Sentence numbers on each side, sorted and distinct; ``line`` is 1-based."""

    source: tuple[int, ...]
    target: tuple[int, ...]
    line: int = 0

    @property
    def key(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        return (self.source, self.target)

    def __str__(self) -> str:
        return f"{list(self.source)}:{list(self.target)}"


@dataclass(frozen=True, slots=True)
class Alignment:
    """The distinct bisegments of one document, in file order, kept as columns: the
    i-th has the sides ``sources[i]`` and ``targets[i]`` and is on line ``lines[i]``
    (a file of 100,000 bisegments makes no object per bisegment until
    :attr:`bisegments` is asked for)."""

    document: str
    sources: tuple[tuple[int, ...], ...] = ()
    targets: tuple[tuple[int, ...], ...] = ()
    lines: tuple[int, ...] = ()
    duplicates: int = 0

    @classmethod
    def of(
        cls, document: str, bisegments: Sequence[Bisegment], duplicates: int = 0
    ) -> Alignment:
        return cls(
            document,
            tuple(b.source for b in bisegments),
            tuple(b.target for b in bisegments),
            tuple(b.line for b in bisegments),
            duplicates,
        )

    @property
    def bisegments(self) -> tuple[Bisegment, ...]:
        return tuple(map(Bisegment, self.sources, self.targets, self.lines))


@dataclass(frozen=True, slots=True)
class AlignmentSet:
    """One alignment per document of a test set, in the test set's document order."""

    alignments: tuple[Alignment, ...]

    def get(self, document: str) -> Alignment:
        for alignment in self.alignments:
            if alignment.document == document:
                return alignment
        raise KeyError(document)


def parse_sentences(data: bytes, file: str) -> tuple[str, ...]:
    """One sentence per line; a trailing space/CR is stripped, empty lines are kept."""
    lines = read_texts(data, file, max_chars=MAX_SENTENCE_CHARS)
    return tuple(map(str.rstrip, lines, itertools.repeat(" \r")))


def parse_documents(data: bytes, file: str) -> tuple[Document, ...]:
    """A zip of ``<doc>.src`` and ``<doc>.tgt`` files -> documents sorted by name."""
    if not is_zip(data):
        raise FormatError.at(
            file, None, "expected a zip of <document>.src and <document>.tgt files"
        )
    members = read_zip(data, file, ("src", "tgt"))
    names = sorted({m.rsplit(".", 1)[0] for m in members})
    problems = ProblemCollector()
    for name in names:
        if not DOC_NAME.fullmatch(name):
            problems.add(
                file,
                None,
                f"{name!r} is not a usable document name (letters, digits, _.+-)",
            )
        for ext in ("src", "tgt"):
            if f"{name}.{ext}" not in members:
                problems.add(file, None, f"document {name!r} has no {name}.{ext}")
    if not names:
        problems.add(file, None, "the zip holds no document")
    problems.raise_if_any()
    return tuple(
        Document(
            name,
            parse_sentences(members[f"{name}.src"], f"{file}:{name}.src"),
            parse_sentences(members[f"{name}.tgt"], f"{file}:{name}.tgt"),
        )
        for name in names
    )


def _side(
    text: str,
    size: int,
    side: str,
    file: str,
    line: int,
    where: str,
    problems: ProblemCollector,
) -> tuple[int, ...] | None:
    text = text.strip()
    if not text:
        return ()
    # Fast path: distinct in-range plain numbers (what nearly every line holds).
    items = [item.strip() for item in text.split(",")]
    if all(len(i) <= 12 and i.isdigit() and i.isascii() for i in items):
        values = [int(i) for i in items]
        if max(values) < size and len(set(values)) == len(values):
            return tuple(sorted(values))
    indices: list[int] = []
    for item in text.split(","):
        item = item.strip()
        if item.startswith("-") and _INDEX.fullmatch(item[1:]):
            problems.add(file, line, f"{where}negative {side} sentence number {item}")
            return None
        if not _INDEX.fullmatch(item):
            problems.add(file, line, f"{where}bad {side} sentence number {item!r}")
            return None
        value = int(item)
        if value >= size:
            problems.add(
                file,
                line,
                f"{where}{side} sentence {value} is out of range (the {side} has {size} sentences, numbered from 0)",
            )
            return None
        indices.append(value)
    distinct = sorted(set(indices))
    if len(distinct) != len(indices):
        problems.add(
            file, line, f"{where}a {side} sentence is listed twice in one bisegment"
        )
        return None
    return tuple(distinct)


#: Characters of bisegment lines decoded at once by :func:`_parse_plain_text`.
_CHUNK_CHARS = 1 << 16
#: A document's lines when every one is a plain ``[i, j]:[k]`` bisegment.
_PLAIN = re.compile(r"(?:\[[0-9, ]*\]:\[[0-9, ]*\](?:\n|\Z))*")


def _parse_plain(lines: Sequence[Line], document: Document) -> Alignment | None:
    """:func:`parse_bisegments` for the common well-formed file, decoded at C speed;
    None when anything is unusual (a score column, a blank line, a bad, repeated
    or out-of-range number, an empty or repeated bisegment), and the line-by-line
    parser then names the problems."""
    joined = "\n".join(line.text for line in lines)
    return _parse_plain_text(joined, [line.number for line in lines], document)


def _parse_plain_text(
    joined: str, numbers: Sequence[int] | None, document: Document
) -> Alignment | None:
    """:func:`_parse_plain` on the lines' text joined with newlines (the lines
    rewritten as JSON arrays, a chunk at a time); ``numbers`` are their line
    numbers (None: 1, 2,
    ...)."""
    if not joined or joined.endswith("\n") or _PLAIN.fullmatch(joined) is None:
        return None
    n_src, n_tgt = len(document.source), len(document.target)
    seen: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()
    sources: list[tuple[int, ...]] = []
    targets: list[tuple[int, ...]] = []
    start = 0
    while start < len(joined):
        # A chunk of lines at a time: the decoded lists stay small.
        end = joined.find("\n", start + _CHUNK_CHARS)
        end = len(joined) if end < 0 else end
        chunk = joined[start:end].replace("]:[", "],[").replace("\n", "],[")
        start = end + 1
        try:
            pairs = json.loads("[[" + chunk + "]]")
        except ValueError:
            return None
        if set(map(len, pairs)) != {2}:
            return None  # e.g. a blank line
        # the checks at C speed: sides of several numbers sorted (a number twice
        # is not), numbers in range, not both sides empty; no bisegment twice
        # (``seen`` grows by exactly the chunk's size)
        srcs = list(map(tuple, map(itemgetter(0), pairs)))
        tgts = list(map(tuple, map(itemgetter(1), pairs)))
        for sides in (srcs, tgts):
            several = map((1).__lt__, map(len, sides))  # 1 < len(side)
            for i in itertools.compress(itertools.count(), several):
                side = tuple(sorted(set(sides[i])))
                if len(side) != len(sides[i]):
                    return None
                sides[i] = side
        if (
            max(map(max, filter(None, srcs)), default=-1) >= n_src
            or max(map(max, filter(None, tgts)), default=-1) >= n_tgt
            or 0 in map(add, map(len, srcs), map(len, tgts))
        ):
            return None
        size = len(seen)
        seen.update(zip(srcs, tgts, strict=True))
        if len(seen) != size + len(srcs):
            return None
        sources += srcs
        targets += tgts
    if numbers is not None and len(numbers) != len(sources):
        return None
    lines = range(1, len(sources) + 1) if numbers is None else numbers
    return Alignment(document.name, tuple(sources), tuple(targets), tuple(lines))


def parse_bisegments(
    lines: Sequence[Line],
    file: str,
    document: Document,
    problems: ProblemCollector,
    *,
    named: bool,
) -> Alignment:
    """Bisegment lines of one document; problems go to ``problems``."""
    fast = _parse_plain(lines, document)
    if fast is not None:
        return fast
    where = f"document {document.name!r}: " if named else ""
    seen: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()
    kept: list[Bisegment] = []
    duplicates = 0
    for line in lines:
        if not line.text.strip():
            continue
        match = _BISEGMENT.fullmatch(line.text)
        if match is None:
            shown = line.text if len(line.text) <= 80 else line.text[:77] + "..."
            problems.add(
                file,
                line.number,
                f"{where}expected a bisegment like [0, 1]:[2], got {shown!r}",
            )
            continue
        src = _side(
            match[1], len(document.source), "source", file, line.number, where, problems
        )
        tgt = _side(
            match[2], len(document.target), "target", file, line.number, where, problems
        )
        if src is None or tgt is None:
            continue
        if not src and not tgt:
            problems.add(
                file, line.number, f"{where}both sides of the bisegment are empty"
            )
            continue
        if (src, tgt) in seen:
            duplicates += 1
            continue
        seen.add((src, tgt))
        kept.append(Bisegment(src, tgt, line.number))
    return Alignment.of(document.name, kept, duplicates)


def parse_alignments(
    data: bytes,
    file: str,
    documents: Sequence[Document],
    ignore: frozenset[str] = frozenset(),
) -> AlignmentSet:
    """An alignment for every document, from a zip of ``<doc>.align`` files or from one
    text file with ``# <doc>`` header lines (no header needed for a single document).

    Documents named in ``ignore`` (those of the phase's other test sets: one run file
    covers them all) are skipped; any other unknown document is an error."""
    by_name: Mapping[str, Document] = {d.name: d for d in documents}
    problems = ProblemCollector()
    found: dict[str, Alignment] = {}
    if is_zip(data):
        members = read_zip(data, file, ("align",))
        for member, content in members.items():
            name = member.rsplit(".", 1)[0]
            if name in ignore:
                continue
            if name not in by_name:
                problems.add(file, None, f"{member}: unknown document {name!r}")
                continue
            lines = read_lines(content, f"{file}:{member}")
            found[name] = parse_bisegments(
                lines, f"{file}:{member}", by_name[name], problems, named=False
            )
    elif len(documents) == 1 and b"#" not in data:
        # One document, no header: the common case, parsed without a Line per line.
        text = decode_text(data, file)
        plain = _parse_plain_text(text.removesuffix("\n"), None, documents[0])
        if plain is not None:
            found[documents[0].name] = plain
        else:
            _parse_sections(
                read_lines(data, file), file, by_name, found, problems, ignore
            )
    else:
        _parse_sections(read_lines(data, file), file, by_name, found, problems, ignore)
    for name in by_name:
        if name not in found:
            problems.add(file, None, f"no alignment for document {name!r}")
    problems.raise_if_any()
    return AlignmentSet(tuple(found[d.name] for d in documents))


def document_names(data: bytes, file: str) -> frozenset[str]:
    """The documents an alignment file names: its ``<document>.align`` members,
    or its ``# <document>`` lines."""
    if is_zip(data):
        return frozenset(m.rsplit(".", 1)[0] for m in read_zip(data, file, ("align",)))
    return frozenset(
        header[1]
        for line in decode_text(data, file).splitlines()
        if (header := _HEADER.fullmatch(line.strip())) is not None
    )


def _parse_sections(
    lines: list[Line],
    file: str,
    by_name: Mapping[str, Document],
    found: dict[str, Alignment],
    problems: ProblemCollector,
    ignore: frozenset[str] = frozenset(),
) -> None:
    sections: list[tuple[str, int, list[Line]]] = []
    current: list[Line] | None = None
    for line in lines:
        header = _HEADER.fullmatch(line.text.strip())
        if header is not None:
            name = header[1]
            if name in ignore:
                current = []  # another test set's document: not ours to check
                continue
            if name not in by_name:
                problems.add(file, line.number, f"unknown document {name!r}")
                current = []  # swallow its lines: they cannot be checked
                continue
            if any(s[0] == name for s in sections):
                problems.add(file, line.number, f"document {name!r} appears twice")
            current = []
            sections.append((name, line.number, current))
        elif line.text.lstrip().startswith("#"):
            problems.add(file, line.number, "a header line is '# <document name>'")
        elif current is None:
            if len(by_name) == 1:
                current = []
                sections.append((next(iter(by_name)), 0, current))
                current.append(line)
            elif line.text.strip():
                problems.add(
                    file, line.number, "bisegment before the first '# <document>' line"
                )
        else:
            current.append(line)
    for name, _, section in sections:
        if name not in found:
            found[name] = parse_bisegments(
                section, file, by_name[name], problems, named=True
            )
