"""What a task type gives the platform's pages besides a run's scores: figures, the
runs a task-level analysis sees and the analysis, the organiser's gold preview and
demo data (part of the task-type contract, :mod:`tasks.base`; kept apart from
:mod:`tasks.reports` so that ``evalhub score`` does not define them). Everything is
a frozen, slotted dataclass or a JSON value."""

from __future__ import annotations

import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tasks.reports import JSON, Curve

T = typing.TypeVar("T")


@dataclass(frozen=True, slots=True)
class Plot:
    """A rendered figure: ``key`` is a file-name-safe slug; ``svg_narrow`` is the
    same figure drawn for a phone's column (b"": not drawn)."""

    key: str
    title: str
    svg: bytes
    png: bytes
    svg_narrow: bytes = b""


@dataclass(frozen=True, slots=True)
class RunDetail:
    """One scored run as a task-level analysis sees it."""

    label: str
    detail: Mapping[str, JSON]
    curves: tuple[Curve, ...]
    metrics: Mapping[str, float | None]
    #: On the public leaderboard: an analysis may show this run's numbers run by
    #: run (a column of its own); other runs count only in aggregates.
    shown: bool = True


@dataclass(frozen=True, slots=True)
class Analysis:
    """Task-level analysis across runs (e.g. BUCC difficulty bins).

    ``public`` may be shown to everyone (bin sizes); ``private`` is organiser-only
    until gold release (bin members).
    """

    public: Mapping[str, JSON]
    private: Mapping[str, JSON]
    plots: tuple[Plot, ...] = ()


@dataclass(frozen=True, slots=True)
class GoldSummary:
    """What a task type understood of a test set's gold, shown to the organiser
    before the gold is used for scoring (see :meth:`TaskType.summarise_gold`).

    - ``counts``: (label, number) pairs, e.g. ``("gold pairs", 1520)``;
    - ``examples``: a few gold items as plain text (they quote the gold: organisers
      only);
    - ``warnings``: what the organiser should look at (duplicates, items without a
      gold answer, lines that merged).
    """

    counts: tuple[tuple[str, int], ...]
    examples: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict[str, JSON]:
        return {
            "counts": [[label, n] for label, n in self.counts],
            "examples": list(self.examples),
            "warnings": list(self.warnings),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, typing.Any]) -> GoldSummary:
        return cls(
            counts=tuple((str(label), int(n)) for label, n in data["counts"]),
            examples=tuple(str(e) for e in data["examples"]),
            warnings=tuple(str(w) for w in data["warnings"]),
        )


def spread(items: Sequence[T], n: int = 5) -> tuple[T, ...]:
    """Up to ``n`` items spread evenly over ``items`` (first one included), so that
    examples show the start, the middle and the end of a file."""
    if not items:
        return ()
    step = max(1, len(items) // n)
    return tuple(items[::step][:n])


@dataclass(frozen=True, slots=True)
class DemoTestSet:
    #: The key of the runs' files and the stored test set's slug.
    name: str
    inputs: Mapping[str, bytes]
    gold: Mapping[str, bytes]
    visibility: str = "public"  # "public" or "private"
    #: The name readers see on boards and cards ("": ``name``).
    title: str = ""


@dataclass(frozen=True, slots=True)
class Demo:
    """Project-generated demo data for the quick start."""

    title: str
    description: str
    settings: Mapping[str, JSON]
    test_sets: tuple[DemoTestSet, ...]
    #: (team name, method name, {test set name: run bytes})
    runs: tuple[tuple[str, str, Mapping[str, bytes]], ...]
