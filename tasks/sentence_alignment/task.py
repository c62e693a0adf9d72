"""The ``sentence_alignment`` task type (ARCADE); see the package docstring."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from tasks.base import (
    JSON,
    FileRole,
    FormatError,
    Metric,
    ScoreReport,
    SettingField,
    TaskType,
)
from tasks.common.gcpause import gc_paused
from tasks.reports import Unit
from tasks.sentence_alignment import FORMAT_HELP
from tasks.sentence_alignment.formats import (
    AlignmentSet,
    Bisegment,
    Document,
    parse_alignments,
    parse_documents,
)
from tasks.sentence_alignment.metrics import (
    ARCADE_LEVELS,
    LEVELS,
    LevelCounts,
    Outcome,
    micro,
    score_document,
)

if TYPE_CHECKING:
    from tasks.common.resampling import ItemStats
    from tasks.pages import Demo, GoldSummary, Plot, RunDetail

_TEXT_LIMIT = 300


@dataclass(frozen=True, slots=True)
class SentenceAlignmentSettings:
    """The organisers' settings of a sentence-alignment task."""

    #: Granularity whose F1 is the primary metric ``f1`` (ARCADE ranked by Sent and Char).
    primary_granularity: Literal["alignment", "sentence", "word", "char"] = "sentence"
    #: Misaligned bisegments listed per document in the organiser-only detail.
    detail_limit: int = 200

    def __post_init__(self) -> None:
        if self.detail_limit < 0:
            raise ValueError("detail_limit: must be 0 or more")


@dataclass(frozen=True, slots=True)
class Bitexts:
    """The public inputs of a test set: its documents, sorted by name."""

    documents: tuple[Document, ...]


_STAT_LABELS = (("precision", "P"), ("recall", "R"), ("f1", "F1"))


def _metrics() -> tuple[Metric, ...]:
    out = [
        Metric(
            "f1",
            "F1 (primary)",
            "F1 at the organiser's chosen granularity (default: sentence level).",
        ),
        Metric(
            "mean_f1",
            "Mean F1",
            "ARCADE's global efficiency: mean F1 of Align, Sent, Word and Char.",
        ),
    ]
    for level in LEVELS:
        for stat, short in _STAT_LABELS:
            out.append(
                Metric(
                    f"{level}_{stat}",
                    f"{level.capitalize()} {short}",
                    f"{stat} at the {level} level",
                )
            )
    return tuple(out)


class SentenceAlignment(
    TaskType[SentenceAlignmentSettings, Bitexts, AlignmentSet, AlignmentSet]
):
    slug = "sentence_alignment"
    name = "Sentence alignment (ARCADE)"
    version = "1.0"
    settings_class = SentenceAlignmentSettings
    input_roles = (
        FileRole(
            "documents",
            "Bitexts (zip)",
            "A zip with <document>.src and <document>.tgt, one sentence per line.",
        ),
    )
    gold_roles = (
        FileRole(
            "gold",
            "Reference alignments",
            "A zip of <document>.align files, or one text file with '# <document>' header lines.",
            private=True,
        ),
    )
    submission_role = FileRole(
        "run",
        "Alignment run",
        "A zip of <document>.align files, or one text file with '# <document>' header lines.",
    )
    metrics = _metrics()
    primary_metric = "f1"
    board_metrics = ("f1", "mean_f1", "alignment_f1", "word_f1", "char_f1")
    #: ARCADE ranked by Sent and Char: the F1 at every level may rank a phase.
    rankable = tuple(f"{level}_f1" for level in LEVELS)
    #: Resampling unit (the bisegments of one document are not independent (ARCADE scores texts)).
    unit = Unit("document", "documents")
    format_help = FORMAT_HELP
    zip_runs = True  # a zip of <doc>.align files
    setting_fields = (
        SettingField(
            "primary_granularity",
            "Primary F1 granularity",
            "The level whose F1 ranks runs (ARCADE ranked by sentence and character).",
        ),
        SettingField(
            "detail_limit",
            "Misaligned bisegments listed per document",
            "In the organiser-only per-item detail.",
        ),
    )

    # ---- files ----------------------------------------------------------------
    def parse_inputs(
        self, files: Mapping[str, bytes], settings: SentenceAlignmentSettings
    ) -> Bitexts:
        if "documents" not in files:
            raise FormatError.at("documents", None, "the bitexts zip is missing")
        return Bitexts(parse_documents(files["documents"], "documents"))

    def parse_gold(
        self,
        files: Mapping[str, bytes],
        inputs: Bitexts,
        settings: SentenceAlignmentSettings,
    ) -> AlignmentSet:
        if "gold" not in files:
            raise FormatError.at("gold", None, "the reference alignments are missing")
        with gc_paused():
            return parse_alignments(files["gold"], "gold", inputs.documents)

    def summarise_gold(
        self,
        gold: AlignmentSet,
        inputs: Bitexts,
        settings: SentenceAlignmentSettings,
    ) -> GoldSummary:
        from tasks.sentence_alignment.summary import summarise_gold

        return summarise_gold(gold, inputs.documents)

    def parse_run(
        self,
        data: bytes,
        filename: str,
        inputs: Bitexts,
        settings: SentenceAlignmentSettings,
    ) -> AlignmentSet:
        with gc_paused():
            return parse_alignments(data, filename, inputs.documents)

    def nothing_to_score(self, run: AlignmentSet) -> str | None:
        if any(a.sources or a.targets for a in run.alignments):
            return None
        return "it aligns no sentence of this test set's documents"

    def parse_phase_run(
        self,
        data: bytes,
        filename: str,
        inputs: Sequence[Bitexts],
        settings: SentenceAlignmentSettings,
    ) -> list[AlignmentSet]:
        """One run file holds the documents of every test set of the phase."""
        names = [frozenset(d.name for d in i.documents) for i in inputs]
        everything = frozenset().union(*names)
        return [
            parse_alignments(data, filename, i.documents, ignore=everything - own)
            for i, own in zip(inputs, names, strict=True)
        ]

    # ---- scoring --------------------------------------------------------------
    def score(
        self,
        run: AlignmentSet,
        gold: AlignmentSet,
        inputs: Bitexts,
        settings: SentenceAlignmentSettings,
    ) -> ScoreReport:
        with gc_paused():
            outcomes = [
                score_document(doc, gold.get(doc.name), run.get(doc.name))
                for doc in inputs.documents
            ]
        total = micro("all", [o.counts for o in outcomes])
        metrics = metrics_of(total, settings.primary_granularity)
        payload: dict[str, JSON] = dict(total.to_json())
        payload["documents"] = {o.counts.name: o.counts.to_json() for o in outcomes}
        payload["primary_granularity"] = settings.primary_granularity
        payload["f1"] = metrics["f1"]
        payload["mean_f1"] = metrics["mean_f1"]
        payload["scorer"] = f"{self.slug} {self.version}"
        warnings = tuple(
            f"document {a.document!r}: {a.duplicates} duplicate bisegment(s) counted once"
            for a in run.alignments
            if a.duplicates
        )
        detail = {
            "documents": [
                _detail(doc, outcome, settings.detail_limit)
                for doc, outcome in zip(inputs.documents, outcomes, strict=True)
            ]
        }
        return ScoreReport(
            metrics=metrics, payload=payload, warnings=warnings, detail=detail
        )

    def item_statistics(
        self, report: ScoreReport, metric: str | None = None
    ) -> ItemStats | None:
        """Per-document F1 counts (see :mod:`tasks.sentence_alignment.resampling`)."""
        from tasks.sentence_alignment import resampling

        return resampling.item_stats(
            report.detail, report.payload, metric or self.primary_metric
        )

    def plots(
        self, report: ScoreReport, settings: SentenceAlignmentSettings
    ) -> tuple[Plot, ...]:
        return (
            _plots().run_bars(
                report.metrics, "Precision, recall and F1 per granularity"
            ),
        )

    def comparison_plots(
        self, runs: Sequence[RunDetail], settings: SentenceAlignmentSettings
    ) -> tuple[Plot, ...]:
        if not runs:
            return ()
        return (
            _plots().comparison_bars(runs),
            _plots().comparison_bars(runs, log_scale=True),
        )

    # ---- demo and CLI -----------------------------------------------------------
    def describe_detail(
        self,
        detail: Mapping[str, JSON],
        gold: AlignmentSet,
        settings: SentenceAlignmentSettings,
    ) -> Mapping[str, JSON]:
        """One row per misaligned bisegment: the run's spurious ones and the gold's
        missed ones, with their sentences side by side."""
        rows: list[JSON] = []
        for doc in detail.get("documents", ()):  # type: ignore[union-attr]
            for kind, label in (("spurious", "run only"), ("missed", "gold only")):
                for item in doc.get(kind, ()):  # type: ignore[union-attr]
                    rows.append(
                        {
                            "document": doc["document"],  # type: ignore[index]
                            "bisegment": item["bisegment"],  # type: ignore[index]
                            "in": label,
                            "lax match": "yes" if item["lax_match"] else "no",  # type: ignore[index]
                            "source sentences": " | ".join(item["source"]),  # type: ignore[index, arg-type]
                            "target sentences": " | ".join(item["target"]),  # type: ignore[index, arg-type]
                        }
                    )
        totals: list[JSON] = [
            {
                "document": d["document"],  # type: ignore[index]
                "run only": d["spurious_total"],  # type: ignore[index]
                "gold only": d["missed_total"],  # type: ignore[index]
            }
            for d in detail.get("documents", ())  # type: ignore[union-attr]
        ]
        return {"misaligned per document": totals, "misaligned bisegments": rows}

    def demo(self, seed: int = 0) -> Demo:
        from tasks.sentence_alignment.demo import build_demo

        return build_demo(seed)

    def add_cli_arguments(self, parser: argparse.ArgumentParser) -> None:
        from tasks.sentence_alignment.cli_args import add_arguments

        add_arguments(parser)

    def cli_settings(self, args: argparse.Namespace) -> SentenceAlignmentSettings:
        from tasks.sentence_alignment.offline import check_arguments

        check_arguments(args)
        return self.parse_settings({"primary_granularity": args.primary_granularity})

    def cli_score(self, args: argparse.Namespace) -> ScoreReport:
        from tasks.sentence_alignment import offline

        settings = self.cli_settings(args)
        with gc_paused():
            inputs = Bitexts(offline.read_documents(args))
            gold, run = offline.read_alignments(args, inputs.documents)
            return self.score(run, gold, inputs, settings)

    def score_command(
        self, settings: SentenceAlignmentSettings, files: Mapping[str, str]
    ) -> tuple[str, ...]:
        """A test set's every document at once (``offline``: ``--documents``)."""
        return (
            "evalhub", "score", self.slug, "--documents", files["documents"],
            "--gold", files["gold"], "--run", files["run"],
            "--ignore-other-documents",
            "--primary-granularity", settings.primary_granularity, "--json",
        )  # fmt: skip


def metrics_of(total: LevelCounts, primary: str) -> dict[str, float | None]:
    """Metric values from test-set counts (every key of ``SentenceAlignment.metrics``)."""
    metrics: dict[str, float | None] = {}
    for level, counts in zip(LEVELS, total.levels, strict=True):
        for (stat, _), value in zip(_STAT_LABELS, counts.scores, strict=True):
            metrics[f"{level}_{stat}"] = value
    metrics["f1"] = metrics[f"{primary}_f1"]
    arcade = [metrics[f"{level}_f1"] or 0.0 for level in ARCADE_LEVELS]
    metrics["mean_f1"] = sum(arcade) / len(arcade)
    return metrics


def _plots():  # noqa: ANN202
    """The figures module, imported when figures are drawn (matplotlib is slow to
    import and ``evalhub score`` does not need it)."""
    from tasks.sentence_alignment import plots

    return plots


def _texts(sentences: tuple[str, ...], indices: tuple[int, ...]) -> list[JSON]:
    return [
        s if len(s) <= _TEXT_LIMIT else s[: _TEXT_LIMIT - 1] + "…"
        for s in (sentences[i] for i in indices)
    ]


def _item(doc: Document, bisegment: Bisegment, lax: bool) -> dict[str, JSON]:
    return {
        "bisegment": str(bisegment),
        "line": bisegment.line,
        "lax_match": lax,
        "source": _texts(doc.source, bisegment.source),
        "target": _texts(doc.target, bisegment.target),
    }


def _detail(doc: Document, outcome: Outcome, limit: int) -> dict[str, JSON]:
    """Organiser-only: misaligned bisegments with their sentences side by side."""
    return {
        "document": doc.name,
        "counts": outcome.counts.to_json(),
        "spurious_total": len(outcome.spurious),
        "missed_total": len(outcome.missed),
        "spurious": [_item(doc, b, lax) for b, lax in outcome.spurious[:limit]],
        "missed": [_item(doc, b, lax) for b, lax in outcome.missed[:limit]],
    }
