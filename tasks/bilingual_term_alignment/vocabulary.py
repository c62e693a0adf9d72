"""The term lists numbered, so that runs and the gold are compared as integers.

Picture D1 x D2 as a grid with one row per source term and one column per target
term, both in sorted order. The pair (s, t) is the cell ``code = row(s) + col(t)``,
where ``col(t)`` is t's position in the sorted targets and ``row(s)`` is s's position
in the sorted sources times |D2| (the code of the row's first cell). So a code names
one pair, codes sort as the pairs sort, and ``code - code % |D2|`` is the row of its
source term. Pairs outside D1 x D2 have no code.

Example: D1 = {a, b}, D2 = {x, y, z}: row(a) = 0, row(b) = 3, col(x) = 0, col(y) = 1,
col(z) = 2; (b, y) -> 4, and 4 -> (sources[4 // 3], targets[4 % 3]) = (b, y).

The term lists are also keyed by their UTF-8 bytes: a run file whose every field is
a known term can be coded without decoding it (see :func:`.runs.parse_run`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Pair = tuple[str, str]


@dataclass(frozen=True, slots=True)
class Vocabulary:
    sources: tuple[str, ...]  # D1, sorted
    targets: tuple[str, ...]  # D2, sorted
    rows: dict[str, int]  # source term -> row(s)
    cols: dict[str, int]  # target term -> col(t)
    rows_utf8: dict[bytes, int]  # the same, keyed by the terms' UTF-8 bytes
    cols_utf8: dict[bytes, int]

    @classmethod
    def of(cls, sources: Iterable[str], targets: Iterable[str]) -> Vocabulary:
        d1, d2 = tuple(sorted(sources)), tuple(sorted(targets))
        width = len(d2)
        rows = {s: i * width for i, s in enumerate(d1)}
        cols = {t: j for j, t in enumerate(d2)}
        return cls(
            sources=d1,
            targets=d2,
            rows=rows,
            cols=cols,
            rows_utf8={s.encode("utf-8"): row for s, row in rows.items()},
            cols_utf8={t.encode("utf-8"): col for t, col in cols.items()},
        )

    @property
    def width(self) -> int:
        """|D2|: the number of cells in a row."""
        return len(self.targets)

    def code(self, pair: Pair) -> int:
        """The code of a pair of D1 x D2 (KeyError outside it)."""
        return self.rows[pair[0]] + self.cols[pair[1]]

    def codes(self, pairs: Iterable[Pair]) -> list[int]:
        return [self.rows[s] + self.cols[t] for s, t in pairs]

    def row(self, code: int) -> int:
        """The row of the code's source term."""
        return code - code % len(self.targets)

    def pair(self, code: int) -> Pair:
        row, col = divmod(code, len(self.targets))
        return self.sources[row], self.targets[col]

    def pairs(self, codes: Sequence[int]) -> tuple[Pair, ...]:
        return tuple(map(self.pair, codes))
