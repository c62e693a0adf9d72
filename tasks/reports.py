"""What a task type declares and returns: file roles, metrics, curves, figures,
score reports, analyses, gold summaries and demo data (part of the task-type contract,
:mod:`tasks.base`). Everything is a frozen, slotted dataclass or a JSON value."""

from __future__ import annotations

import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

T = typing.TypeVar("T")

#: A JSON value (what ``json.dumps`` accepts).
JSON = typing.Union[None, bool, int, float, str, Sequence["JSON"], Mapping[str, "JSON"]]  # noqa: UP007


@dataclass(frozen=True, slots=True)
class FileRole:
    """A file a test set or a submission carries. ``private`` files are gold."""

    key: str
    label: str
    help: str
    private: bool = False
    required: bool = True


@dataclass(frozen=True, slots=True)
class Metric:
    key: str
    label: str
    description: str
    higher_is_better: bool = True
    #: A count (shown as a whole number) rather than a ratio (shown with 4 decimals).
    count: bool = False

    def format(self, value: float | None) -> str:
        """How pages and exports show a value: "–" for undefined."""
        if value is None:
            return "–"
        if self.count:
            return f"{round(value):,}"
        return f"{value:.4f}"


@dataclass(frozen=True, slots=True)
class Curve:
    """A family of y series over one x axis (e.g. P, R, F1 against rank)."""

    key: str
    title: str
    x_label: str
    y_label: str
    x: tuple[float, ...]
    series: tuple[tuple[str, tuple[float, ...]], ...]
    log_x: bool = False
    marker_x: float | None = None

    def to_json(self) -> dict[str, JSON]:
        return {
            "key": self.key,
            "title": self.title,
            "x_label": self.x_label,
            "y_label": self.y_label,
            "x": list(self.x),
            "series": [[label, list(ys)] for label, ys in self.series],
            "log_x": self.log_x,
            "marker_x": self.marker_x,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, typing.Any]) -> Curve:
        return cls(
            key=str(data["key"]),
            title=str(data["title"]),
            x_label=str(data["x_label"]),
            y_label=str(data["y_label"]),
            x=tuple(float(v) for v in data["x"]),
            series=tuple(
                (str(label), tuple(float(v) for v in ys))
                for label, ys in data["series"]
            ),
            log_x=bool(data.get("log_x", False)),
            marker_x=None if data.get("marker_x") is None else float(data["marker_x"]),
        )


@dataclass(frozen=True, slots=True)
class Plot:
    """A rendered figure: ``key`` is a file-name-safe slug."""

    key: str
    title: str
    svg: bytes
    png: bytes


@dataclass(frozen=True, slots=True)
class ScoreReport:
    """What :meth:`TaskType.score` returns.

    - ``metrics``: metric key -> value (None where undefined), every key in
      ``TaskType.metrics`` present. Public (subject to test-set visibility).
    - ``payload``: the CLI JSON object of the spec's contract. Public.
    - ``curves``: data for the per-run and comparison plots. Public.
    - ``warnings``: readable notes on the run (duplicates removed, OOV pairs dropped).
      They may quote the run, never the gold. Public to the run's team.
    - ``detail``: per-item outcomes (which gold items were found, clusters, ...).
      Organiser-only until the gold is released.
    """

    metrics: Mapping[str, float | None]
    payload: Mapping[str, JSON]
    curves: tuple[Curve, ...] = ()
    warnings: tuple[str, ...] = ()
    detail: Mapping[str, JSON] = field(default_factory=dict)


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
    name: str
    inputs: Mapping[str, bytes]
    gold: Mapping[str, bytes]
    visibility: str = "public"  # "public" or "private"


@dataclass(frozen=True, slots=True)
class Demo:
    """Project-generated demo data for the quick start."""

    title: str
    description: str
    settings: Mapping[str, JSON]
    test_sets: tuple[DemoTestSet, ...]
    #: (team name, method name, {test set name: run bytes})
    runs: tuple[tuple[str, str, Mapping[str, bytes]], ...]
