"""What a task type declares and what scoring returns: file roles, metrics, curves and
score reports (part of the task-type contract, :mod:`tasks.base`; what the
platform's pages get besides, figures, analyses, gold previews and demo data, is in
:mod:`tasks.pages`, which ``evalhub score`` does not import). Everything is a
frozen, slotted dataclass or a JSON value."""

from __future__ import annotations

import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

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
class Unit:
    """The resampling unit of a task type's primary metric (``TaskType.unit``): what
    its bootstrap interval, paired bootstrap and randomisation test resample
    (:mod:`tasks.common.resampling.bands`)."""

    singular: str
    plural: str

    def count(self, n: int) -> str:
        """``"2 documents"``, ``"1 document"``."""
        return f"{n:,} {self.singular if n == 1 else self.plural}"


#: Task types that declare none resample their gold items.
GOLD_ITEM = Unit("gold item", "gold items")


@dataclass(frozen=True, slots=True)
class Metric:
    """A score a task type reports: its key in ``ScoreReport.metrics``, how pages
    label and explain it, and which way is better."""

    key: str
    label: str
    description: str
    higher_is_better: bool = True
    #: A count (shown as a whole number) rather than a ratio (shown with 4 decimals).
    count: bool = False
    #: Describes the run's state, not its quality (e.g. the share of items judged so
    #: far): never marked "best".
    bookkeeping: bool = False

    @property
    def quality(self) -> bool:
        """A measure of the system's quality that readers compare: a table marks its
        best value (per ``higher_is_better``). Counts (nSys, TP, FP, FN) and
        bookkeeping metrics are not: the fewest ranked pairs is not "best"."""
        return not self.count and not self.bookkeeping

    def best(self, values: Sequence[float | None]) -> float | None:
        """The value a table marks "best" among ``values``: :func:`best_value`."""
        return best_value(
            values, higher_is_better=self.higher_is_better, quality=self.quality
        )

    def format(self, value: float | None) -> str:
        """How pages and exports show a value: "–" for undefined."""
        if value is None:
            return "–"
        if self.count:
            return f"{round(value):,}"
        return f"{value:.4f}"


def best_value(
    values: Sequence[float | None], *, higher_is_better: bool, quality: bool
) -> float | None:
    """The one rule for "best" in a table column (every export and the package call
    it): the highest (or, for ``higher_is_better=False``, the lowest) defined value
    of a quality metric; ``None`` for a count or bookkeeping metric
    (``quality=False``) and for a column without values. Every cell equal to it is
    marked (ties all are)."""
    present = [v for v in values if v is not None]
    if not quality or not present:
        return None
    return max(present) if higher_is_better else min(present)


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
