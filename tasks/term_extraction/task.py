"""The ``term_extraction`` task type (TermoMeter + classic P/R/F)."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tasks.base import (
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
from tasks.reports import Unit
from tasks.term_extraction import formats
from tasks.term_extraction.formats import GoldList, RunList, TermExtractionSettings
from tasks.term_extraction.scoring import score_run


@dataclass(frozen=True, slots=True)
class Corpus:
    """The optional public corpus: stored for participants, never parsed."""

    n_bytes: int


FORMAT_HELP = """\
**Run file**: UTF-8 text, **one term per line**. Optionally `term<TAB>score` on every
line: the list is then ranked by score (higher first); without scores the line order
is the rank.

- A BOM is stripped, CRLF is accepted, text is Unicode NFC-normalised; each term is
  trimmed and inner whitespace collapsed; empty lines are ignored; duplicates (after
  normalisation) count once. Case is folded when the task says so.
- Rejected with the file and line: invalid UTF-8, binary files, lines over 1,000
  characters, more terms than the task's limit. A task may evaluate only the first N
  terms of each run (in rank order).
- If the organiser enables it, the CSV form `index,term` (terms with commas may be
  quoted) and a JSON list of strings (or one list of a JSON list of term lists) are
  accepted too.

**Scores**: exact-match precision, recall and F1, and TermoMeter's terminological
precision (TP), recall (TR) and F (TF): each output term is matched to its nearest gold
term by d_t = (string distance + word-alignment distance) / 2; terms closer than the
threshold tau (default 0.4) count with relevance 1 - d_t, and several variants of one
gold term count once. Ranked runs also get P@k and average precision.
"""


class TermExtraction(TaskType[TermExtractionSettings, Corpus, GoldList, RunList]):
    slug = "term_extraction"
    name = "Term extraction (TermoMeter)"
    version = "1.1"  # 1.1: distances compared exactly (ties, d <= tau)
    settings_class = TermExtractionSettings
    input_roles = (
        FileRole(
            "corpus",
            "Corpus",
            "The texts terms are extracted from (any format; stored, not parsed).",
            required=False,
        ),
    )
    gold_roles = (
        FileRole(
            "gold",
            "Gold term list",
            "UTF-8, one term per line, optionally term<TAB>label "
            "(Specific_Term, Common_Term, OOD_Term, Named_Entity).",
            private=True,
        ),
    )
    submission_role = FileRole(
        "run", "Extracted terms", "UTF-8, one term per line, optionally term<TAB>score."
    )
    metrics = (
        Metric("term_f1", "TF", "TermoMeter terminological F at tau"),
        Metric("term_precision", "TP", "TermoMeter terminological precision at tau"),
        Metric("term_recall", "TR", "TermoMeter terminological recall at tau"),
        Metric("f1", "F1", "Exact-match F1"),
        Metric("precision", "P", "Exact-match precision"),
        Metric("recall", "R", "Exact-match recall"),
        Metric("average_precision", "AP", "Average precision of a ranked run"),
    )
    primary_metric = "term_f1"
    board_metrics = ("term_f1", "term_precision", "term_recall", "f1")
    #: The exact-match F1 (TermEval 2020's measure) may rank a phase too.
    rankable = ("f1",)
    #: Resampling unit (TermoMeter's TP and TR sum one pertinence per gold term).
    unit = Unit("gold term", "gold terms")
    format_help = FORMAT_HELP
    setting_fields = (
        SettingField(
            "tau",
            "Threshold τ",
            "TermoMeter's distance threshold, 0 to 1 (paper: 0.4).",
        ),
        SettingField(
            "casefold", "Ignore case", "Compare run and gold terms case-insensitively."
        ),
        SettingField(
            "mode",
            "Classic P/R/F mode",
            "default: normalised strings; termeval: run lowercased, gold as written, exact match (TermEval 2020).",
        ),
        SettingField(
            "cap",
            "Evaluate only the first N terms",
            "Empty: every term of a run (CESART caps runs).",
        ),
        SettingField(
            "max_terms", "Reject runs longer than", "Terms per run; empty: no limit."
        ),
        SettingField(
            "exclude_labels",
            "Drop gold terms labelled",
            'Gold terms with these labels are not scored (TermEval\'s "without named entities").',
            choices=formats.LABELS,
        ),
        SettingField(
            "accept_formats",
            "Also accept runs as",
            "Besides one term per line.",
            choices=formats.RUN_FORMATS,
        ),
        SettingField(
            "json_list",
            "JSON list to score",
            "For JSON runs holding one list per language: the 0-based list; empty: none.",
        ),
        SettingField(
            "ranked",
            "Line order is a ranking",
            "Runs without scores are ranked by their line order.",
        ),
    )

    def parse_inputs(
        self, files: Mapping[str, bytes], settings: TermExtractionSettings
    ) -> Corpus:
        return Corpus(len(files.get("corpus", b"")))

    def parse_gold(
        self,
        files: Mapping[str, bytes],
        inputs: Corpus,
        settings: TermExtractionSettings,
    ) -> GoldList:
        if "gold" not in files:
            raise FormatError.at("gold", None, "the gold term list is missing")
        return formats.parse_gold(files["gold"], "gold", settings)

    def gold_warnings(
        self, gold: GoldList, settings: TermExtractionSettings
    ) -> tuple[str, ...]:
        return gold.merge_warnings()

    def summarise_gold(
        self, gold: GoldList, inputs: Corpus, settings: TermExtractionSettings
    ) -> GoldSummary:
        from tasks.term_extraction.summary import summarise_gold

        return summarise_gold(gold, settings)

    def parse_run(
        self,
        data: bytes,
        filename: str,
        inputs: Corpus,
        settings: TermExtractionSettings,
    ) -> RunList:
        return formats.parse_run(data, filename, settings)

    def nothing_to_score(self, run: RunList) -> str | None:
        return None if run.terms else "it lists no term (its lines are blank)"

    def score(
        self,
        run: RunList,
        gold: GoldList,
        inputs: Corpus,
        settings: TermExtractionSettings,
    ) -> ScoreReport:
        return score_run(run, gold, settings)

    def item_statistics(
        self, report: ScoreReport, metric: str | None = None
    ) -> ItemStats | None:
        """Per-gold-term statistics of TF or the exact-match F1 (see
        :mod:`tasks.term_extraction.resampling`)."""
        from tasks.term_extraction import resampling

        return resampling.item_stats(
            report.detail, report.payload, metric or self.primary_metric
        )

    def plots(
        self, report: ScoreReport, settings: TermExtractionSettings
    ) -> tuple[Plot, ...]:
        from tasks.term_extraction import plots

        return plots.run_plots(report.curves)

    def comparison_plots(
        self, runs: Sequence[RunDetail], settings: TermExtractionSettings
    ) -> tuple[Plot, ...]:
        """TP, TR and TF against tau, one line per run (TF is the leaderboard chart)."""
        from tasks.term_extraction import plots

        return plots.leaderboard_plots(runs)

    def demo(self, seed: int = 0) -> Demo:
        from tasks.term_extraction.demo import build_demo

        return build_demo(seed)

    def add_cli_arguments(self, parser: argparse.ArgumentParser) -> None:
        from tasks.term_extraction.cli_args import add_arguments

        add_arguments(parser)

    def cli_settings(self, args: argparse.Namespace) -> TermExtractionSettings:
        return self.parse_settings(
            {
                "tau": args.tau,
                "casefold": args.casefold,
                "mode": args.mode,
                "exclude_labels": list(args.exclude_label),
                "cap": args.cap,
                "accept_formats": list(args.accept_format),
                "json_list": args.json_list,
                "ranked": args.ranked,
            }
        )

    def score_command(
        self, settings: TermExtractionSettings, files: Mapping[str, str]
    ) -> tuple[str, ...]:
        """Every setting that changes a score, as ``cli_settings`` reads it."""
        args = ["evalhub", "score", self.slug, "--gold", files["gold"]]
        args += ["--run", files["run"], "--tau", str(settings.tau)]
        args += ["--mode", settings.mode] + (
            ["--casefold"] if settings.casefold else []
        )
        for excluded in settings.exclude_labels:
            args += ["--exclude-label", excluded]
        if settings.cap is not None:
            args += ["--cap", str(settings.cap)]
        for accepted in settings.accept_formats:
            args += ["--accept-format", accepted]
        if settings.json_list is not None:
            args += ["--json-list", str(settings.json_list)]
        return (*args, *(["--ranked"] if settings.ranked else []), "--json")

    def cli_score(self, args: argparse.Namespace) -> ScoreReport:
        settings = self.cli_settings(args)
        gold = formats.parse_gold(
            read_input(args.gold, "--gold"), label("--gold", args.gold), settings
        )
        run = formats.parse_run(
            read_input(args.run, "--run", allow_blank=True),
            label("--run", args.run),
            settings,
        )
        return score_run(run, gold, settings)
