"""The ``bilingual_term_alignment`` task type (BUCC 2022); see the package docstring."""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar

from tasks.base import (
    JSON,
    Analysis,
    Curve,
    Demo,
    FileRole,
    GoldSummary,
    Metric,
    Plot,
    RunDetail,
    ScoreReport,
    SettingField,
    TaskType,
)
from tasks.common import ranking
from tasks.common.cli_files import label, read_input
from tasks.common.gcpause import gc_paused
from tasks.reports import Unit

from . import FORMAT_HELP, formats, metrics, runs
from .formats import Gold, Inputs, Run, Settings

if TYPE_CHECKING:
    from tasks.common.resampling import ItemStats


class BilingualTermAlignment(TaskType[Settings, Inputs, Gold, Run]):
    slug: ClassVar[str] = "bilingual_term_alignment"
    name: ClassVar[str] = "Bilingual term alignment (BUCC 2022)"
    # 1.1: AP summed in rank order, as evaluation.py sums.
    version: ClassVar[str] = "1.1"
    settings_class: ClassVar[type] = Settings
    input_roles: ClassVar[tuple[FileRole, ...]] = (
        FileRole(
            "source_terms", "Source terms (D1)", "One source-language term per line."
        ),
        FileRole(
            "target_terms", "Target terms (D2)", "One target-language term per line."
        ),
    )
    gold_roles: ClassVar[tuple[FileRole, ...]] = (
        FileRole(
            "gold",
            "Gold dictionary (D1,2)",
            "source<TAB>target per line, every pair inside D1 x D2.",
            private=True,
        ),
    )
    submission_role: ClassVar[FileRole] = FileRole(
        "run", "Run", "Ranked source<TAB>target pairs, best first."
    )
    metrics: ClassVar[tuple[Metric, ...]] = (
        Metric(
            "ap", "AP", "Uninterpolated average precision (official BUCC 2022 measure)."
        ),
        Metric(
            "ap_interpolated",
            "AP (interp.)",
            "Average precision with interpolated precision.",
        ),
        Metric("precision", "P", "True positives / ranked pairs."),
        Metric("recall", "R", "True positives / gold pairs."),
        Metric("f1", "F1", "Harmonic mean of P and R."),
        Metric("p_at_100", "P@100", "Precision of the first 100 pairs."),
        Metric("p_at_1000", "P@1000", "Precision of the first 1000 pairs."),
        Metric("r_precision", "R-prec", "Precision of the first |gold| pairs."),
        Metric(
            "map_source", "MAP (source)", "Mean over gold source terms of their AP."
        ),
        Metric(
            "n_sys",
            "nSys",
            "Ranked pairs after cleaning.",
            higher_is_better=False,
            count=True,
        ),
        Metric("tp", "TP", "Gold pairs retrieved.", count=True),
        Metric(
            "fp",
            "FP",
            "Ranked pairs not in the gold.",
            higher_is_better=False,
            count=True,
        ),
        Metric(
            "fn", "FN", "Gold pairs not retrieved.", higher_is_better=False, count=True
        ),
    )
    primary_metric: ClassVar[str] = "ap"
    board_metrics: ClassVar[tuple[str, ...]] = ("ap", "f1", "p_at_100", "map_source")
    rankable: ClassVar[tuple[str, ...]] = (
        "f1",
        "p_at_100",
        "p_at_1000",
        "r_precision",
    )
    #: Resampling unit (AP is a mean over the gold pairs (each found pair's precision at its rank)).
    unit = Unit("gold pair", "gold pairs")
    format_help: ClassVar[str] = FORMAT_HELP
    setting_fields: ClassVar[tuple[SettingField, ...]] = (
        SettingField(
            "cap_policy",
            "Runs longer than the cap",
            "reject: refused at upload; truncate: cut to the cap, with a warning.",
        ),
        SettingField(
            "cap_factor",
            "Cap factor",
            "cap = floor(factor × (|D1| + |D2|) / 2) ranked pairs; the paper: 10 per term.",
        ),
        SettingField(
            "detail_candidates",
            "Wrong candidates kept per gold term",
            "In the organiser-only per-item detail (the closest ones, by rank).",
        ),
    )

    # ---- files ----------------------------------------------------------------
    def parse_inputs(self, files: Mapping[str, bytes], settings: Settings) -> Inputs:
        return Inputs(
            source_terms=formats.parse_term_list(files["source_terms"], "source_terms"),
            target_terms=formats.parse_term_list(files["target_terms"], "target_terms"),
        )

    def parse_gold(
        self, files: Mapping[str, bytes], inputs: Inputs, settings: Settings
    ) -> Gold:
        return formats.parse_gold(files["gold"], "gold", inputs)

    def summarise_gold(
        self, gold: Gold, inputs: Inputs, settings: Settings
    ) -> GoldSummary:
        from .summary import summarise_gold

        return summarise_gold(gold, inputs)

    def parse_run(
        self, data: bytes, filename: str, inputs: Inputs, settings: Settings
    ) -> Run:
        with gc_paused():
            return runs.parse_run(data, filename, inputs, settings)

    def nothing_to_score(self, run: Run) -> str | None:
        if run.codes:
            return None
        return "every pair was removed: " + "; ".join(run.warnings)

    # ---- scoring --------------------------------------------------------------
    def score(
        self, run: Run, gold: Gold, inputs: Inputs, settings: Settings
    ) -> ScoreReport:
        with gc_paused():
            return self._score(run, gold, settings)

    def _score(
        self, run: Run, gold: Gold, settings: Settings, *, curves: bool = True
    ) -> ScoreReport:
        """The report; ``curves=False`` leaves the figures' data out (numpy is
        imported only for them: ``evalhub score`` without ``--plots``)."""
        scores, hit_ranks = metrics.compute(run, gold)
        values: dict[str, float | None] = {
            "ap": scores.ap,
            "ap_interpolated": scores.ap_interpolated,
            "precision": scores.precision,
            "recall": scores.recall,
            "f1": scores.f1,
            "p_at_100": scores.p_at_100,
            "p_at_1000": scores.p_at_1000,
            "r_precision": scores.r_precision,
            "map_source": scores.map_source,
            "n_sys": float(scores.n_sys),
            "tp": float(scores.tp),
            "fp": float(scores.fp),
            "fn": float(scores.fn),
        }
        payload: dict[str, JSON] = {
            "ap": scores.ap,
            "ap_interpolated": scores.ap_interpolated,
            "n_sys": scores.n_sys,
            "n_gold": scores.n_gold,
            "tp": scores.tp,
            "fp": scores.fp,
            "fn": scores.fn,
            "precision": scores.precision,
            "recall": scores.recall,
            "f1": scores.f1,
            "n_oov": run.n_oov,
            "n_duplicates": run.n_duplicates,
            "n_truncated": run.n_truncated,
            "n_lines": run.n_lines,
            "p_at_100": scores.p_at_100,
            "p_at_1000": scores.p_at_1000,
            "r_precision": scores.r_precision,
            "map_source": scores.map_source,
        }
        return ScoreReport(
            metrics=values,
            payload=payload,
            curves=(
                _curves(metrics.relevance_of(hit_ranks, scores.n_sys), scores.n_gold)
                if curves
                else ()
            ),
            warnings=run.warnings,
            detail=_detail(run, gold, hit_ranks, settings.detail_candidates),
        )

    def item_statistics(
        self, report: ScoreReport, metric: str | None = None
    ) -> ItemStats | None:
        """Per-gold-pair statistics of AP, or of another rankable metric (see
        :mod:`.resampling`)."""
        from . import resampling

        return resampling.item_stats(
            report.detail, report.payload, metric or self.primary_metric
        )

    # ---- plots and analysis ------------------------------------------------------
    def plots(self, report: ScoreReport, settings: Settings) -> tuple[Plot, ...]:
        from tasks.common import plotting

        return tuple(plotting.curve_plot(c) for c in report.curves)

    def describe_detail(
        self, detail: Mapping[str, JSON], gold: Gold, settings: Settings
    ) -> Mapping[str, JSON]:
        """Each gold pair with the rank at which the run retrieved it, then the run's
        best-ranked wrong candidates per gold source term."""
        ranks = detail.get("gold_ranks")
        if not isinstance(ranks, list) or len(ranks) != len(gold.sorted_pairs):
            return detail
        pairs: list[JSON] = [
            {"source": s, "target": t, "rank": r if r > 0 else "not retrieved"}
            for (s, t), r in sorted(
                zip(gold.sorted_pairs, ranks, strict=True),
                key=lambda item: (item[1] <= 0, item[1]),
            )
        ]
        wrong = detail.get("wrong_candidates") or {}
        candidates: list[JSON] = [
            {
                "source": src,
                "wrong targets (rank)": ", ".join(f"{t} ({r})" for t, r in items),
            }
            for src, items in sorted(wrong.items())  # type: ignore[union-attr]
        ]
        return {"gold pairs": pairs, "wrong candidates": candidates}

    def analyse(
        self, runs: Sequence[RunDetail], gold: Gold, settings: Settings
    ) -> Analysis | None:
        from tasks.bilingual_term_alignment import analysis

        return analysis.difficulty_bins(runs, gold)

    # ---- demo and CLI -----------------------------------------------------------
    def demo(self, seed: int = 0) -> Demo:
        from tasks.bilingual_term_alignment import demo

        return demo.build(seed)

    def add_cli_arguments(self, parser: argparse.ArgumentParser) -> None:
        from tasks.bilingual_term_alignment.cli_args import add_arguments

        add_arguments(parser)

    def cli_settings(self, args: argparse.Namespace) -> Settings:
        return self.parse_settings(
            {"cap_policy": args.cap_policy, "cap_factor": args.cap_factor}
        )

    def score_command(
        self, settings: Settings, files: Mapping[str, str]
    ) -> tuple[str, ...]:
        return (
            "evalhub", "score", self.slug, "--gold", files["gold"],
            "--run", files["run"], "--source-terms", files["source_terms"],
            "--target-terms", files["target_terms"],
            "--cap-policy", settings.cap_policy,
            "--cap-factor", str(settings.cap_factor), "--json",
        )  # fmt: skip

    def cli_score(self, args: argparse.Namespace) -> ScoreReport:
        settings = self.cli_settings(args)
        source = label("--source-terms", args.source_terms)
        target = label("--target-terms", args.target_terms)
        inputs = Inputs(
            source_terms=formats.parse_term_list(
                read_input(args.source_terms, "--source-terms"), source
            ),
            target_terms=formats.parse_term_list(
                read_input(args.target_terms, "--target-terms"), target
            ),
        )
        gold = formats.parse_gold(
            read_input(args.gold, "--gold"), label("--gold", args.gold), inputs
        )
        run = self.parse_run(
            read_input(args.run, "--run", allow_blank=True),
            label("--run", args.run),
            inputs,
            settings,
        )
        with gc_paused():
            return self._score(
                run, gold, settings, curves=bool(getattr(args, "plots", None))
            )


def _curves(rel: list[bool], n_gold: int) -> tuple[Curve, ...]:
    """P/R/F1 against examined pairs (linear and log x) and accumulated AP, thinned
    to a few hundred points; the last point is always the exact final value."""
    if len(rel) == 0:
        return ()
    rc = ranking.rank_curves(rel, n_gold)
    idx = ranking.downsample_indices(len(rel))
    x = tuple(float(v) for v in rc.k[idx])

    def pick(values: ranking.FloatArray) -> tuple[float, ...]:
        return tuple(float(v) for v in values[idx])

    prf = (
        ("precision", pick(rc.precision)),
        ("recall", pick(rc.recall)),
        ("F1", pick(rc.f1)),
    )
    marker = float(n_gold) if n_gold <= len(rel) else None
    examined = "examined term pairs"
    return (
        Curve(
            "prf", "Precision, recall, F1", examined, "score", x, prf, marker_x=marker
        ),
        Curve(
            "prf_log",
            "Precision, recall, F1 (log x)",
            examined,
            "score",
            x,
            prf,
            log_x=True,
            marker_x=marker,
        ),
        Curve(
            "ap",
            "Average precision accumulated",
            examined,
            "AP",
            x,
            (("AP", pick(rc.ap)),),
        ),
    )


def _detail(
    run: Run, gold: Gold, hit_ranks: list[int], n_candidates: int
) -> dict[str, JSON]:
    """Organiser-only: rank of each gold pair (sorted gold order, -1 = missed) and,
    per gold source term, the run's best-ranked wrong targets ``[target, rank]``."""
    codes, rows = run.codes, run.rows
    rank_of = {codes[rank - 1]: rank for rank in hit_ranks}
    wrong: dict[str, list[JSON]] = {}
    if n_candidates:
        first: dict[int, list[int]] = {}  # gold source row -> its wrong ranks
        gold_rows = gold.row_sizes
        is_hit = metrics.relevance_of(hit_ranks, len(codes))
        for i in itertools.compress(range(len(codes)), [not r for r in is_hit]):
            row = rows[i]
            if row not in gold_rows:
                continue
            ranks = first.get(row)
            if ranks is None:
                first[row] = [i]
            elif len(ranks) < n_candidates:
                ranks.append(i)
        for row in sorted(first):
            for i in first[row]:
                source, target = run.vocabulary.pair(codes[i])
                wrong.setdefault(source, []).append([target, i + 1])
    return {
        "gold_ranks": [rank_of.get(c, -1) for c in gold.sorted_codes],
        "wrong_candidates": wrong,
    }
