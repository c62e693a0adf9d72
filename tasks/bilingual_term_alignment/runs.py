"""Reading a run: its ranked pairs as codes of the inputs' vocabulary (see the package
docstring for the rules, :mod:`.vocabulary` for the codes).

Two ways in, one way out. A file whose lines each hold exactly one tab (no blank
line) is split as bytes and its fields looked up as they stand: a field equal to a
term of its list is valid UTF-8, NFC, trimmed and non-empty, so it needs none of the
text rules; only the other fields are decoded, normalised and trimmed one by one
(NFC never composes across a tab or a newline, so a field normalises alone as it
would in its line). Any other file, and any field that cannot be read (bad UTF-8, a
NUL, empty once trimmed), goes the text way of :func:`.formats.split_pairs`, which
names every bad line. Both hand their fields to :func:`_coded`, which removes
repeats and pairs outside D1 x D2 and words the warnings.
"""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from operator import add, eq, is_, itemgetter, not_
from typing import Any

from tasks.base import FormatError
from tasks.common.textio import BOM

from .formats import (
    MAX_QUOTED_LINES,
    Inputs,
    Run,
    Settings,
    cap_size,
    one_tab_a_line,
    split_pairs,
)
from .vocabulary import Pair, Vocabulary

#: Bytes of a run split at a time: the field objects of one chunk are freed before
#: the next is split, which then reuses their memory (splitting a 1 MB run at once
#: costs some 4 ms more, mostly in fresh pages).
CHUNK = 32_768

#: A file where more than one pair in ``ODD_SHARE`` has a field that is no term as it
#: stands (every line padded, say) goes the text way, found out within a chunk.
ODD_SHARE = 8


@dataclass(slots=True)
class _Coding:
    """A run being coded: for pair i, its key (its code; a placeholder while it is
    odd) and the row of its source; ``odd`` holds the fields of the pairs with a
    field that is no term as it stands, by index."""

    keys: list[Any] = field(default_factory=list)
    rows: list[Any] = field(default_factory=list)
    odd: dict[int, tuple[Any, Any]] = field(default_factory=dict)

    def add(
        self,
        sources: list[Any],
        targets: list[Any],
        row_of: Callable[[Any], int | None],
        col_of: Callable[[Any], int | None],
    ) -> None:
        """Code the next pairs, at C speed unless some field is no term."""
        start = len(self.rows)
        rows = list(map(row_of, sources))
        try:
            self.keys += map(add, rows, map(col_of, targets))
        except TypeError:  # a None: a field that is no term as it stands
            del self.keys[start:]
            cols = list(map(col_of, targets))
            for j in sorted({*_nones(rows), *_nones(cols)}):
                self.odd[start + j] = (sources[j], targets[j])
                rows[j] = cols[j] = 0
            self.keys += map(add, rows, cols)
        self.rows += rows


def parse_run(data: bytes, file: str, inputs: Inputs, settings: Settings) -> Run:
    """A run: pairs in rank order. Bad lines -> FormatError (nothing scored).

    Repeats of a pair are removed (the first occurrence keeps its rank) and counted;
    then pairs outside D1 x D2 are removed and counted; both cost no rank. Then the cap.
    """
    run = _read_bytes(data, inputs.vocabulary)
    if run is None:
        run = _read_text(data, file, inputs.vocabulary)
    return _capped(run, file, inputs, settings)


def _read_text(data: bytes, file: str, vocabulary: Vocabulary) -> Run:
    """The run of any file, read as text (FormatError naming the bad lines)."""
    parsed = split_pairs(data, file)
    coding = _Coding()
    coding.add(
        list(map(itemgetter(0), parsed.pairs)),
        list(map(itemgetter(1), parsed.pairs)),
        vocabulary.rows.get,
        vocabulary.cols.get,
    )
    run = _coded(coding, vocabulary, parsed.line, None)
    assert run is not None  # text fields are already read
    return run


def _read_bytes(data: bytes, vocabulary: Vocabulary) -> Run | None:
    """The run of a file with exactly one tab on every line, or None."""
    if data.startswith(BOM):
        data = data[len(BOM) :]
    if b"\x00" in data:
        return None
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n")  # a lone CR stays, as in the text
    if not one_tab_a_line(data):
        return None  # a line without one tab, a blank line, or an empty file
    coding = _Coding()
    row_of, col_of = vocabulary.rows_utf8.get, vocabulary.cols_utf8.get
    start, size = 0, len(data)
    while start < size:
        end = data.find(b"\n", start + CHUNK) + 1 or size  # whole lines
        fields = data[start:end].replace(b"\n", b"\t").split(b"\t")
        if end < size or data.endswith(b"\n"):
            fields.pop()  # after the chunk's final newline
        coding.add(fields[0::2], fields[1::2], row_of, col_of)
        if len(coding.odd) * ODD_SHARE > len(coding.rows):
            return None  # fields to be read one by one: the text way is faster
        start = end
    return _coded(coding, vocabulary, _next_line, _read_field)


def _next_line(index: int) -> int:
    return index + 1


def _read_field(raw: bytes) -> str | None:
    """A field as the text rules read it (UTF-8, NFC, trimmed); None if it is not
    valid UTF-8 or is empty once trimmed (the text way then names the line)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
    return text.strip() or None


def _coded(
    coding: _Coding,
    vocabulary: Vocabulary,
    line: Callable[[int], int],
    read: Callable[[Any], str | None] | None,
) -> Run | None:
    """The run of these coded pairs (pair i on line ``line(i)``): odd str fields are
    already read (``read`` None), odd bytes fields are read by ``read`` (None: a
    field cannot be read, and neither can the run). At C speed but for the odd
    pairs and the quoted lines."""
    keys, rows = coding.keys, coding.rows
    n = len(keys)
    outside: dict[int, Pair] = {}  # index -> a pair outside D1 x D2, as read
    for i, (source, target) in coding.odd.items():
        if read is not None:
            source, target = read(source), read(target)
            if source is None or target is None:
                return None
        row = vocabulary.rows.get(source)
        col = vocabulary.cols.get(target)
        if row is None or col is None:
            outside[i] = keys[i] = (source, target)  # equal to its repeats only
        else:
            rows[i], keys[i] = row, row + col
    if len(set(keys)) == n:
        if not outside:
            return Run(keys, rows, vocabulary, n, 0, 0, 0, ())
        keep = [True] * n
    else:  # keep the first occurrence of each key (the last write wins)
        first = dict(zip(reversed(keys), range(n - 1, -1, -1), strict=True))
        keep = list(map(eq, map(first.__getitem__, keys), range(n)))
    n_dup = n - keep.count(True)
    warnings: list[str] = []
    if n_dup:
        repeats = itertools.compress(range(n), map(not_, keep))
        warnings.append(
            f"{n_dup} repeated pair(s) removed, only the first occurrence counts "
            f"({_lines_note(map(line, repeats), n_dup)})"
        )
    outside_firsts = [i for i in outside if keep[i]]
    n_oov = len(outside_firsts)
    if n_oov:
        warnings.append(
            f"{n_oov} pair(s) outside the source x target term lists removed "
            f"({_lines_note(map(line, iter(outside_firsts)), n_oov)})"
        )
    for i in outside:
        keep[i] = False
    return Run(
        codes=list(itertools.compress(keys, keep)),
        rows=list(itertools.compress(rows, keep)),
        vocabulary=vocabulary,
        n_lines=n,
        n_duplicates=n_dup,
        n_oov=n_oov,
        n_truncated=0,
        warnings=tuple(warnings),
    )


def _nones(values: list[Any]) -> Iterator[int]:
    """The indexes of the Nones, at C speed."""
    return itertools.compress(
        itertools.count(), map(is_, values, itertools.repeat(None))
    )


def _lines_note(lines: Iterator[int], total: int) -> str:
    shown = ", ".join(map(str, itertools.islice(lines, MAX_QUOTED_LINES)))
    return f"line(s) {shown}" + (" ..." if total > MAX_QUOTED_LINES else "")


def _capped(run: Run, file: str, inputs: Inputs, settings: Settings) -> Run:
    """The run within the cap: rejected or cut above it, as the settings say."""
    cap = cap_size(inputs, settings)
    n = len(run.codes)
    if n <= cap:
        return run
    if settings.cap_policy == "reject":
        raise FormatError.at(
            file,
            None,
            f"the run ranks {n:,} distinct in-vocabulary pairs, more than the "
            f"limit of {cap:,} ({settings.cap_factor:g} x the mean size of the two term "
            "lists); submit at most that many",
        )
    note = f"the run was cut to the limit of {cap:,} pairs ({n - cap:,} dropped)"
    return replace(
        run,
        codes=run.codes[:cap],
        rows=run.rows[:cap],
        n_truncated=n - cap,
        warnings=(*run.warnings, note),
    )
