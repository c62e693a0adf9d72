"""The ``mt_lexicon_probe`` task type (Volk 1997); see the package docstring."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from tasks.base import (
    JSON,
    Analysis,
    Demo,
    FileRole,
    FormatError,
    GoldSummary,
    Metric,
    Plot,
    RunDetail,
    ScoreReport,
    SettingField,
    TaskType,
)
from tasks.common.cli_files import label, read_input
from tasks.common.resampling import ItemStats
from tasks.mt_lexicon_probe import FORMAT_HELP
from tasks.mt_lexicon_probe import report as run_report
from tasks.mt_lexicon_probe.probes import (
    FreqClass,
    Pos,
    ProbeSet,
    Run,
    parse_judgements,
    parse_memory,
    parse_probes,
    parse_references,
    parse_run,
)
from tasks.mt_lexicon_probe.scoring import MEASURES, tabulate
from tasks.mt_lexicon_probe.setting_fields import SETTING_FIELDS
from tasks.mt_lexicon_probe.tags import JudgementMemory, Outcome, Tag, settle
from tasks.reports import Unit


@dataclass(frozen=True, slots=True)
class MtLexiconProbeSettings:
    """``count_proposed_correct``: count proposed ``c`` (a reference occurs in the
    translation, not yet confirmed) in the provisional scores. Templates (empty =
    the paper's for ``source_lang``) are used when the platform builds probe sets."""

    source_lang: Literal["en", "de"] = "en"
    count_proposed_correct: bool = True
    template_adj: str = ""
    template_noun: str = ""
    template_verb: str = ""


@dataclass(frozen=True, slots=True)
class Gold:
    """Reference translations per probe id (may be empty: scoring then relies on
    judgements and automatic ``u`` only)."""

    references: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def _metrics() -> tuple[Metric, ...]:
    labels = {
        "translated": "Translated",
        "correct": "Correct",
        "correct_strict": "Correct w/o wrong forms",
    }
    out = [
        Metric(
            f"{m}_{fc.value}_mean",
            f"{labels[m]}, {fc.value} freq.",
            f"Share of judged items counted '{m}' in the {fc.value} frequency class, "
            "mean over adjectives, nouns and verbs (Volk 1997, tables 1-3).",
        )
        for m in MEASURES
        for fc in FreqClass
    ]
    out += [
        Metric(
            "wrong_determiners",
            "Wrong determiners",
            "Nouns tagged wd (table 4).",
            False,
            count=True,
        ),
        Metric(
            "n_pending",
            "Awaiting annotation",
            "Items not yet tagged.",
            False,
            count=True,
        ),
        Metric(
            "judged_share",
            "Judged share",
            "Share of items already tagged.",
            bookkeeping=True,
        ),
    ]
    return tuple(out)


class MtLexiconProbe(TaskType[MtLexiconProbeSettings, ProbeSet, Gold, Run]):
    slug: ClassVar[str] = "mt_lexicon_probe"
    name: ClassVar[str] = "MT lexicon probing (Volk 1997)"
    version: ClassVar[str] = "1.0"
    settings_class: ClassVar[type] = MtLexiconProbeSettings
    input_roles: ClassVar[tuple[FileRole, ...]] = (
        FileRole(
            "probes",
            "Probe sentences",
            "TSV id, word, pos, freq_class, sentence (no references).",
        ),
    )
    gold_roles: ClassVar[tuple[FileRole, ...]] = (
        FileRole(
            "references",
            "Reference translations",
            "TSV id<TAB>ref1|ref2; lines may be empty.",
            private=True,
            required=False,
        ),
    )
    submission_role: ClassVar[FileRole] = FileRole(
        "run",
        "Translations",
        "One translation per probe sentence, same order and line count.",
    )
    metrics: ClassVar[tuple[Metric, ...]] = _metrics()
    primary_metric: ClassVar[str] = "correct_low_mean"
    board_metrics = ("correct_low_mean", "correct_medium_mean", "correct_high_mean")
    unit = Unit("probe word", "probe words")  # resampled: one judgement each
    #: The primary metric is a mean over the word classes judged so far.
    coverage_unit = Unit("word class", "word classes")
    format_help: ClassVar[str] = FORMAT_HELP
    setting_fields: ClassVar[tuple[SettingField, ...]] = SETTING_FIELDS

    # ---- files ------------------------------------------------------------------
    def parse_inputs(
        self, files: Mapping[str, bytes], settings: MtLexiconProbeSettings
    ) -> ProbeSet:
        if "probes" not in files:
            raise FormatError.at("probes", None, "the probe file is missing")
        return parse_probes(files["probes"], "probes", allow_references=False)

    def parse_gold(
        self,
        files: Mapping[str, bytes],
        inputs: ProbeSet,
        settings: MtLexiconProbeSettings,
    ) -> Gold:
        data = files.get("references")
        if data is None:
            return Gold()
        return Gold(parse_references(data, "references", inputs))

    def summarise_gold(
        self, gold: Gold, inputs: ProbeSet, settings: MtLexiconProbeSettings
    ) -> GoldSummary:
        from tasks.mt_lexicon_probe.summary import summarise_references

        return summarise_references(gold.references, inputs)

    def parse_run(
        self,
        data: bytes,
        filename: str,
        inputs: ProbeSet,
        settings: MtLexiconProbeSettings,
    ) -> Run:
        return parse_run(data, filename, inputs)

    # ---- scoring ----------------------------------------------------------------
    def settle_items(
        self,
        run: Run,
        gold: Gold,
        inputs: ProbeSet,
        judgements: Mapping[str, Tag] | None = None,
        memory: JudgementMemory | None = None,
    ) -> tuple[Outcome, ...]:
        """Each probe's outcome in probe order (see :func:`tags.settle`)."""
        judgements = judgements or {}
        return tuple(
            settle(
                probe.id,
                probe.word,
                translation,
                references=gold.references.get(probe.id, probe.references),
                judgement=judgements.get(probe.id),
                memory=memory,
            )
            for probe, translation in zip(inputs.probes, run.translations, strict=True)
        )

    def score(
        self, run: Run, gold: Gold, inputs: ProbeSet, settings: MtLexiconProbeSettings
    ) -> ScoreReport:
        """Automatic tags only (``u``, proposed ``c``): a provisional score."""
        return self.score_judged(run, gold, inputs, settings, {})

    def score_judged(
        self,
        run: Run,
        gold: Gold,
        inputs: ProbeSet,
        settings: MtLexiconProbeSettings,
        judgements: Mapping[str, Tag],
        *,
        memory: JudgementMemory | None = None,
    ) -> ScoreReport:
        """Score with this run's stored judgements (probe id -> tag) and optionally
        the judgement memory built from all systems' judgements."""
        warnings = list(run.warnings)
        by_id = inputs.by_id()
        unknown = sorted(set(judgements) - set(by_id))
        if unknown:
            warnings.append(
                f"ignored judgements for {len(unknown)} unknown probe id(s)"
            )
        misplaced = sorted(
            pid
            for pid, t in judgements.items()
            if pid in by_id and t.nouns_only and by_id[pid].pos is not Pos.NOUN
        )
        if misplaced:
            warnings.append(
                f"{len(misplaced)} non-noun item(s) tagged f or wd (nouns-only tags)"
            )
        outcomes = self.settle_items(run, gold, inputs, judgements, memory)
        tables = tabulate(
            inputs.probes, outcomes, count_proposed=settings.count_proposed_correct
        )
        return run_report.build(
            inputs,
            outcomes,
            tables,
            tuple(warnings),
            memory_conflicts=len(memory.conflicts) if memory else 0,
        )

    def item_statistics(
        self, report: ScoreReport, metric: str | None = None
    ) -> ItemStats | None:
        """Per-probe statistics (see :mod:`tasks.mt_lexicon_probe.resampling`)."""
        from tasks.mt_lexicon_probe import resampling

        if metric not in (None, self.primary_metric):
            return None
        return resampling.item_stats(report.detail, report.payload)

    def coverage(self, payload: Mapping[str, JSON]) -> tuple[int, int] | None:
        """Word classes the primary metric's mean rests on (:mod:`.report`)."""
        return run_report.coverage(payload, self.primary_metric)

    def plots(
        self, report: ScoreReport, settings: MtLexiconProbeSettings
    ) -> tuple[Plot, ...]:
        from tasks.mt_lexicon_probe import plots

        return (plots.run_bars(report.payload),)

    def comparison_plots(
        self, runs: Sequence[RunDetail], settings: MtLexiconProbeSettings
    ) -> tuple[Plot, ...]:
        from tasks.mt_lexicon_probe import plots

        if not runs:
            return ()
        tables = plots.paper_tables(
            runs, count_proposed=settings.count_proposed_correct
        )
        return (
            plots.systems_by_frequency(runs)
            + (plots.gap(runs),)
            + ((tables,) if tables else ())
        )

    def analyse(
        self, runs: Sequence[RunDetail], gold: Gold, settings: MtLexiconProbeSettings
    ) -> Analysis | None:
        from tasks.mt_lexicon_probe.analysis import paper_tables

        return paper_tables(runs, count_proposed=settings.count_proposed_correct)

    # ---- demo and CLI -------------------------------------------------------------
    def demo(self, seed: int = 0) -> Demo:
        from tasks.mt_lexicon_probe.demo import make_demo

        return make_demo(seed)

    def add_cli_arguments(self, parser: argparse.ArgumentParser) -> None:
        from tasks.mt_lexicon_probe.cli_args import add_arguments

        add_arguments(parser)

    def cli_settings(self, args: argparse.Namespace) -> MtLexiconProbeSettings:
        return MtLexiconProbeSettings(count_proposed_correct=not args.no_proposed)

    no_score_command = (
        "No offline command is shown for this task type: its scores depend on the "
        "annotators' judgements of each run's translations, which are not published."
    )

    def score_command(
        self, settings: MtLexiconProbeSettings, files: Mapping[str, str]
    ) -> None:
        """None: the scores depend on the annotators' judgements (``--judgements``,
        ``--memory``), which only organisers and annotators can read, even after
        the gold is released (the public's per-item page shows settled tags, not
        judgement files); without them the command gives a provisional score."""
        return None

    def cli_score(self, args: argparse.Namespace) -> ScoreReport:
        def read(option: str, path: str) -> tuple[bytes, str]:
            blank_ok = option in ("--run", "--judgements", "--memory")
            return read_input(path, option, allow_blank=blank_ok), label(option, path)

        full = parse_probes(*read("--probes", args.probes))
        inputs = full.without_references()
        refs = {p.id: p.references for p in full.probes if p.references}
        if args.references:
            refs.update(
                parse_references(*read("--references", args.references), inputs)
            )
        run = parse_run(*read("--run", args.run), inputs)
        judgements = (
            parse_judgements(*read("--judgements", args.judgements), inputs)
            if args.judgements
            else {}
        )
        memory = (
            parse_memory(*read("--memory", args.memory), inputs)
            if args.memory
            else None
        )
        settings = self.cli_settings(args)
        return self.score_judged(
            run, Gold(refs), inputs, settings, judgements, memory=memory
        )
