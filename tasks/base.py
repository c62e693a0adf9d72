"""The task-type plug-in contract (see DESIGN.md, "Task-type plug-in").

A task type is a subclass of :class:`TaskType` registered in :mod:`tasks.registry`.
The platform (``evalhub/``) and the offline scorer (``evalhub score``) only ever talk to
task types through this module, so everything crossing the boundary is a frozen,
slotted dataclass or a JSON-serialisable value.

Data flow for one run on one test set::

    settings = tt.parse_settings(raw_settings)          # SettingsError
    inputs   = tt.parse_inputs(public_files, settings)   # FormatError
    gold     = tt.parse_gold(gold_files, inputs, settings)
    run      = tt.parse_run(data, "run.tsv", inputs, settings)   # at upload, sync
    report   = tt.score(run, gold, inputs, settings)     # on the worker
    plots    = tt.plots(report)

``report.detail`` holds per-item outcomes and is organiser-only until gold release;
``report.metrics``, ``report.curves`` and ``report.payload`` are safe to publish.
"""

from __future__ import annotations

import abc
import argparse
import dataclasses
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Generic, TypeVar

if TYPE_CHECKING:
    from tasks.common.resampling import ItemStats

#: A JSON value (what ``json.dumps`` accepts).
JSON = typing.Union[None, bool, int, float, str, Sequence["JSON"], Mapping[str, "JSON"]]


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an input file. ``line`` is 1-based, None for the whole file.

    Messages must never quote hidden gold: a problem found in a *run* may quote the
    run's own line, never a gold line.
    """

    file: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.file}, line {self.line}" if self.line else self.file
        return f"{where}: {self.message}"

    def to_json(self) -> dict[str, JSON]:
        return {"file": self.file, "line": self.line, "message": self.message}


class FormatError(ValueError):
    """A file cannot be used. Carries up to ``MAX_PROBLEMS`` problems, first ones first."""

    MAX_PROBLEMS = 20

    def __init__(self, problems: Sequence[Problem], *, total: int | None = None):
        if not problems:
            raise ValueError("FormatError needs at least one problem")
        self.problems: tuple[Problem, ...] = tuple(problems)[: self.MAX_PROBLEMS]
        self.total = max(total or 0, len(problems))
        more = self.total - len(self.problems)
        text = "; ".join(str(p) for p in self.problems[:5])
        if self.total > 5:
            text += f" (and {self.total - 5} more problem(s))"
        super().__init__(text)
        self.more = more

    @classmethod
    def at(cls, file: str, line: int | None, message: str) -> FormatError:
        return cls([Problem(file, line, message)])

    def to_json(self) -> dict[str, JSON]:
        return {
            "errors": [p.to_json() for p in self.problems],
            "n_errors": self.total,
        }


class ProblemCollector:
    """Collect problems while parsing; ``raise_if_any()`` at the end."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.total = 0

    def add(self, file: str, line: int | None, message: str) -> None:
        self.total += 1
        if len(self.problems) < FormatError.MAX_PROBLEMS:
            self.problems.append(Problem(file, line, message))

    def raise_if_any(self) -> None:
        if self.total:
            raise FormatError(self.problems, total=self.total)


class SettingsError(ValueError):
    """A task-type setting has a bad value; the message names the setting."""


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


SettingsT = TypeVar("SettingsT")
InputsT = TypeVar("InputsT")
GoldT = TypeVar("GoldT")
RunT = TypeVar("RunT")


class TaskType(abc.ABC, Generic[SettingsT, InputsT, GoldT, RunT]):
    """Base class of every task type. Subclasses set the class attributes and
    implement the abstract methods; nothing here rewrites their arguments."""

    slug: ClassVar[str]
    name: ClassVar[str]
    #: Bump on any change that can change a score; stored with every score.
    version: ClassVar[str]
    #: A frozen dataclass whose fields all have defaults.
    settings_class: ClassVar[type]
    input_roles: ClassVar[tuple[FileRole, ...]]
    gold_roles: ClassVar[tuple[FileRole, ...]]
    submission_role: ClassVar[FileRole]
    metrics: ClassVar[tuple[Metric, ...]]
    primary_metric: ClassVar[str]
    #: Metric keys a leaderboard shows by default (the primary metric and the few
    #: the paper reports), so that the table fits a laptop screen; readers reveal
    #: the rest. Empty (the default): every metric.
    board_metrics: ClassVar[tuple[str, ...]] = ()
    #: Markdown shown on the task page under "Submission format".
    format_help: ClassVar[str]

    # ---- settings -------------------------------------------------------------
    def parse_settings(self, raw: Mapping[str, object] | None) -> SettingsT:
        """Build ``settings_class`` from a JSON mapping; unknown keys and wrong
        types raise :class:`SettingsError` naming the key."""
        raw = dict(raw or {})
        cls = self.settings_class
        hints = typing.get_type_hints(cls)
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(raw) - known)
        if unknown:
            raise SettingsError(f"unknown setting(s): {', '.join(unknown)}")
        values: dict[str, object] = {}
        for name, value in raw.items():
            values[name] = _coerce(name, value, hints[name])
        try:
            return typing.cast(SettingsT, cls(**values))
        except (TypeError, ValueError) as exc:
            raise SettingsError(str(exc)) from exc

    def settings_to_json(self, settings: SettingsT) -> dict[str, JSON]:
        return typing.cast(
            dict[str, JSON], dataclasses.asdict(typing.cast(typing.Any, settings))
        )

    # ---- files ----------------------------------------------------------------
    @abc.abstractmethod
    def parse_inputs(self, files: Mapping[str, bytes], settings: SettingsT) -> InputsT:
        """Parse the public input files (keys: ``input_roles`` keys)."""

    @abc.abstractmethod
    def parse_gold(
        self, files: Mapping[str, bytes], inputs: InputsT, settings: SettingsT
    ) -> GoldT:
        """Parse the gold files (keys: ``gold_roles`` keys); FormatError if unusable."""

    @abc.abstractmethod
    def parse_run(
        self, data: bytes, filename: str, inputs: InputsT, settings: SettingsT
    ) -> RunT:
        """Parse and validate a submitted run against the *public* inputs only.

        Raises FormatError naming ``filename`` and line numbers. Must not look at
        gold, so its errors cannot leak it.
        """

    def parse_phase_run(
        self,
        data: bytes,
        filename: str,
        inputs: Sequence[InputsT],
        settings: SettingsT,
    ) -> list[RunT]:
        """Parse one submitted file for every test set of a phase (``inputs`` in test
        set order). A run file is scored on all test sets; a task type whose file holds
        parts for several test sets (e.g. documents) overrides this so each test set
        ignores the others' parts while unknown parts are still errors."""
        return [self.parse_run(data, filename, i, settings) for i in inputs]

    # ---- scoring --------------------------------------------------------------
    @abc.abstractmethod
    def score(
        self, run: RunT, gold: GoldT, inputs: InputsT, settings: SettingsT
    ) -> ScoreReport:
        """Score one run on one test set."""

    def plots(self, report: ScoreReport, settings: SettingsT) -> tuple[Plot, ...]:
        """Per-run figures; by default one figure per curve."""
        from tasks.common import plotting

        return tuple(plotting.curve_plot(c) for c in report.curves)

    def comparison_plots(
        self, runs: Sequence[RunDetail], settings: SettingsT
    ) -> tuple[Plot, ...]:
        """Leaderboard figures over several runs; by default each curve overlaid."""
        from tasks.common import plotting

        return plotting.overlay_plots(runs)

    def describe_detail(
        self, detail: Mapping[str, JSON], gold: GoldT, settings: SettingsT
    ) -> Mapping[str, JSON]:
        """The organiser-only per-item view of a report's ``detail``, readable on a page
        (e.g. gold items spelled out next to their outcome). Default: as stored."""
        return detail

    def gold_warnings(self, gold: GoldT, settings: SettingsT) -> tuple[str, ...]:
        """Notes for the organiser at gold upload (e.g. lines that merged). May quote
        gold: only organisers see them."""
        return ()

    def analyse(
        self, runs: Sequence[RunDetail], gold: GoldT, settings: SettingsT
    ) -> Analysis | None:
        """Task-level analysis across runs; None when the task type has none."""
        return None

    def item_statistics(self, report: ScoreReport) -> ItemStats | None:
        """Per-gold-item statistics from which the primary metric is recomputed on
        a resample (confidence intervals, paired tests, Ladder; see
        :mod:`tasks.common.resampling`). Reads ``report.detail`` (and payload), so it
        also works on a stored evaluation. None when the task type has none or the
        metric is undefined."""
        return None

    # ---- demo and CLI -----------------------------------------------------------
    @abc.abstractmethod
    def demo(self, seed: int = 0) -> Demo:
        """Project-generated demo data (no external data)."""

    @abc.abstractmethod
    def add_cli_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Add the spec's ``evalhub score <slug>`` arguments (``--json`` is added
        by the caller)."""

    @abc.abstractmethod
    def cli_score(self, args: argparse.Namespace) -> ScoreReport:
        """Read the files named in ``args`` and score; FormatError on bad input."""

    # ---- helpers --------------------------------------------------------------
    def metric(self, key: str) -> Metric:
        for m in self.metrics:
            if m.key == key:
                return m
        raise KeyError(key)


def _coerce(name: str, value: object, hint: object) -> object:
    """Check a JSON value against a settings field's type hint."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        errors = []
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _coerce(name, value, arg)
            except SettingsError as exc:
                errors.append(str(exc))
        raise SettingsError(errors[0] if errors else f"{name}: bad value {value!r}")
    if origin is typing.Literal:
        if value in args:
            return value
        allowed = ", ".join(repr(a) for a in args)
        raise SettingsError(f"{name}: {value!r} is not one of {allowed}")
    if hint is bool:
        if isinstance(value, bool):
            return value
        raise SettingsError(f"{name}: expected true or false, got {value!r}")
    if hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise SettingsError(f"{name}: expected a whole number, got {value!r}")
    if hint is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise SettingsError(f"{name}: expected a number, got {value!r}")
    if hint is str:
        if isinstance(value, str):
            return value
        raise SettingsError(f"{name}: expected text, got {value!r}")
    if origin is tuple:
        if not isinstance(value, (list, tuple)):
            raise SettingsError(f"{name}: expected a list, got {value!r}")
        inner = args[0] if args else str
        return tuple(_coerce(name, v, inner) for v in value)
    raise SettingsError(f"{name}: unsupported setting type {hint!r}")
