"""The task-type plug-in contract (see DESIGN.md, "Task-type plug-in").

A task type is a subclass of :class:`TaskType` registered in :mod:`tasks.registry`.
The platform (``evalhub/``) and the offline scorer (``evalhub score``) only ever talk to
task types through this module, so everything crossing the boundary is a frozen,
slotted dataclass or a JSON-serialisable value.

Data flow for one run on one test set::

    settings = tt.parse_settings(raw_settings)          # SettingsError
    inputs   = tt.parse_inputs(public_files, settings)   # FormatError
    gold     = tt.parse_gold(gold_files, inputs, settings)
    summary  = tt.summarise_gold(gold, inputs, settings)  # organiser's preview
    run      = tt.parse_run(data, "run.tsv", inputs, settings)   # at upload, sync
    report   = tt.score(run, gold, inputs, settings)     # on the worker
    plots    = tt.plots(report)

``report.detail`` holds per-item outcomes and is organiser-only until gold release;
``report.metrics``, ``report.curves`` and ``report.payload`` are safe to publish.

Its parts live by concept: :mod:`tasks.errors` (problems, format and settings errors),
:mod:`tasks.reports` (roles, metrics, curves, score reports), :mod:`tasks.pages`
(figures, analyses, gold previews, demo data: imported only when asked for) and
:mod:`tasks.settings` (settings parsing); they are re-exported here, so task types
import everything from ``tasks.base``.
"""

from __future__ import annotations

import abc
import argparse
import dataclasses
import typing
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar, Generic, TypeVar

from tasks.errors import FormatError, Problem, ProblemCollector, SettingsError
from tasks.reports import GOLD_ITEM, JSON, Curve, FileRole, Metric, ScoreReport, Unit
from tasks.settings import SettingField, SettingSpec, describe_settings, parse_settings

if TYPE_CHECKING:
    from tasks.common.resampling import ItemStats
    from tasks.pages import Analysis, Demo, DemoTestSet, GoldSummary, Plot, RunDetail

#: Re-exported from :mod:`tasks.pages` when first asked for (see :func:`__getattr__`).
_PAGE_NAMES = frozenset(
    ("Analysis", "Demo", "DemoTestSet", "GoldSummary", "Plot", "RunDetail")
)


def __getattr__(name: str) -> object:
    """``from tasks.base import Plot`` works as for every other name, but
    :mod:`tasks.pages` is imported only then: ``evalhub score`` never needs it."""
    if name in _PAGE_NAMES:
        from tasks import pages

        return getattr(pages, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "JSON",
    "Analysis",
    "Curve",
    "Demo",
    "DemoTestSet",
    "FileRole",
    "FormatError",
    "GoldSummary",
    "Metric",
    "Plot",
    "Problem",
    "ProblemCollector",
    "RunDetail",
    "ScoreReport",
    "SettingField",
    "SettingSpec",
    "SettingsError",
    "TaskType",
]


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
    #: Metric keys besides the primary one that an organiser may rank a phase by
    #: (``rankable_metrics``); each is a quality metric the scorer computes and
    #: that :meth:`item_statistics` recomputes on a resample, so the intervals,
    #: bands and the Ladder rest on the metric that ranks. Its direction is its
    #: ``Metric.higher_is_better``.
    rankable: ClassVar[tuple[str, ...]] = ()
    #: The unit the primary metric treats as independent: the bootstrap interval,
    #: the paired bootstrap and the randomisation test all resample it
    #: (:mod:`tasks.common.resampling.bands`).
    unit: ClassVar[Unit] = GOLD_ITEM
    #: When the primary metric is a mean over cells that may be empty (word
    #: classes with nothing judged yet), what a cell is; :meth:`coverage` then says
    #: how many cells a run's mean rests on. None (the default): always complete.
    coverage_unit: ClassVar[Unit | None] = None
    #: Markdown shown on the task page under "Submission format".
    format_help: ClassVar[str]
    #: How the organisers' settings form asks for each setting (label, help, the
    #: values a list may hold); kinds and defaults come from ``settings_class``.
    setting_fields: ClassVar[tuple[SettingField, ...]] = ()
    #: Where ``score_command`` returns None: one sentence saying why no offline
    #: command is offered, shown on the task page once the gold is released.
    no_score_command: ClassVar[str] = ""
    #: A run may be a zip archive (its format says what it holds); otherwise a run
    #: is read as it is and no compressed form is accepted.
    zip_runs: ClassVar[bool] = False

    # ---- settings -------------------------------------------------------------
    def parse_settings(self, raw: Mapping[str, object] | None) -> SettingsT:
        """Build ``settings_class`` from a JSON mapping; unknown keys and wrong
        types raise :class:`SettingsError` naming the key."""
        return typing.cast(SettingsT, parse_settings(self.settings_class, raw))

    def settings_form(self) -> tuple[SettingSpec, ...]:
        """Every setting, described for a form (see :func:`tasks.settings.describe_settings`)."""
        return describe_settings(self.settings_class, self.setting_fields)

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

    def nothing_to_score(self, run: RunT) -> str | None:
        """Why nothing of this parsed run can be scored (every line was removed as a
        repeat, out of vocabulary, blank, ...), as a clause naming the lines; None
        when something can. The platform rejects a run with nothing to score on any
        of its test sets, uncounted. Default: None (a run is always scorable)."""
        return None

    def gold_warnings(self, gold: GoldT, settings: SettingsT) -> tuple[str, ...]:
        """Notes for the organiser at gold upload (e.g. lines that merged). May quote
        gold: only organisers see them."""
        return ()

    def summarise_gold(
        self, gold: GoldT, inputs: InputsT, settings: SettingsT
    ) -> GoldSummary:
        """What was understood of the gold, for the organiser's preview before it is
        used for scoring: counts (gold pairs, terms, documents, probes...), a few
        example items and warnings (duplicates, items without an answer). Quotes
        gold: organisers only. Default: no counts, the :meth:`gold_warnings`."""
        from tasks.pages import GoldSummary

        return GoldSummary(counts=(), warnings=self.gold_warnings(gold, settings))

    def analyse(
        self, runs: Sequence[RunDetail], gold: GoldT, settings: SettingsT
    ) -> Analysis | None:
        """Task-level analysis across runs; None when the task type has none."""
        return None

    def item_statistics(
        self, report: ScoreReport, metric: str | None = None
    ) -> ItemStats | None:
        """Per-unit statistics from which ``metric`` (one of
        :meth:`rankable_metrics`; None: the primary metric) is recomputed on a
        resample (confidence intervals, paired tests, Ladder; see
        :mod:`tasks.common.resampling`). Reads ``report.detail`` (and payload), so it
        also works on a stored evaluation. None when the task type has none or the
        metric is undefined."""
        return None

    def coverage(self, payload: Mapping[str, JSON]) -> tuple[int, int] | None:
        """``(cells with a value, cells)`` the primary metric's mean rests on, read
        from a report's (or a stored evaluation's) ``payload``, for a task type
        with a ``coverage_unit``; None when the payload does not say. The boards
        mark a mean over fewer cells and rank it after every mean over more
        (``evalhub.competitions.services.boards.selection``)."""
        return None

    # ---- demo and CLI -----------------------------------------------------------
    @abc.abstractmethod
    def demo(self, seed: int = 0) -> Demo:
        """Project-generated demo data (no external data)."""

    @abc.abstractmethod
    def add_cli_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Add the spec's ``evalhub score <slug>`` arguments (``--json`` is added
        by the caller)."""

    def cli_settings(self, args: argparse.Namespace) -> SettingsT:
        """The settings ``cli_score`` scores with (also given to ``plots``);
        default: the task type's defaults."""
        return self.parse_settings({})

    @abc.abstractmethod
    def cli_score(self, args: argparse.Namespace) -> ScoreReport:
        """Read the files named in ``args`` and score; FormatError on bad input."""

    def score_command(
        self, settings: SettingsT, files: Mapping[str, str]
    ) -> tuple[str, ...] | None:
        """The ``evalhub score`` command line that gives a run the scores the
        platform gives it with ``settings``, ``files`` naming the file of each role
        (the submission's included); KeyError for a role it needs and lacks. None
        (the default) when no single command does (e.g. scores that depend on
        annotators' judgements)."""
        return None

    # ---- helpers --------------------------------------------------------------
    def metric(self, key: str) -> Metric:
        for m in self.metrics:
            if m.key == key:
                return m
        raise KeyError(key)

    def rankable_metrics(self) -> tuple[str, ...]:
        """The metric keys a phase may be ranked by: the primary metric first, then
        the declared ``rankable`` ones in the task type's metric order."""
        keys = [m.key for m in self.metrics if m.key in self.rankable]
        return (self.primary_metric, *(k for k in keys if k != self.primary_metric))

    def default_metrics(self) -> tuple[str, ...]:
        """The metric keys a leaderboard and a paper's table show by default: the
        ``board_metrics`` (every metric when none are declared), the primary metric
        always among them."""
        keys = tuple(m.key for m in self.metrics)
        declared = tuple(k for k in self.board_metrics if k in keys)
        if not declared:
            return keys
        if self.primary_metric not in declared:
            declared = (self.primary_metric, *declared)
        return declared
