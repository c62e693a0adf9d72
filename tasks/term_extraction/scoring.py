"""One run against one gold list: metrics, CLI payload, curves, warnings, detail."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from tasks.base import JSON, Curve, ScoreReport
from tasks.common import ranking
from tasks.term_extraction.formats import GoldList, RunList, TermExtractionSettings
from tasks.term_extraction.measures import (
    TAU_GRID,
    classic,
    termometer,
    termometer_curve,
)
from tasks.term_extraction.nearest import Nearest, nearest_gold

RANK_KS = (100, 500, 1000)
NO_LABEL = "(no label)"
NAMED_ENTITY = "Named_Entity"


def score_run(
    run: RunList, gold: GoldList, settings: TermExtractionSettings
) -> ScoreReport:
    warnings: list[str] = []
    terms, written = run.terms, run.written
    if settings.cap is not None and len(terms) > settings.cap:
        warnings.append(
            f"only the first {settings.cap:,} of {len(terms):,} distinct terms are evaluated"
        )
        terms, written = terms[: settings.cap], written[: settings.cap]
    duplicates = (
        run.n_duplicates_written if settings.mode == "termeval" else run.n_duplicates
    )
    if duplicates:
        warnings.append(f"{duplicates:,} duplicate term(s) counted once")

    if settings.mode == "termeval":
        outputs, refs, ref_labels = written, gold.written, gold.written_labels
    else:
        outputs, refs, ref_labels = terms, gold.terms, gold.labels
    exact = classic(outputs, refs)

    nn = nearest_gold(list(terms), list(gold.terms))
    matched = nn.within(settings.tau)
    at_tau = termometer(
        nn.index, nn.distance, len(gold.terms), settings.tau, matched=matched
    )
    curve = termometer_curve(nn.index, nn.distance, len(gold.terms), within=nn.within)

    ranked = run.scored or settings.ranked
    metrics: dict[str, float | None] = {
        "precision": exact.precision,
        "recall": exact.recall,
        "f1": exact.f1,
        "term_precision": at_tau.term_precision,
        "term_recall": at_tau.term_recall,
        "term_f1": at_tau.term_f1,
        "average_precision": None,
    }
    payload: dict[str, JSON] = {
        "n_output": exact.n_output,
        "n_gold": exact.n_gold,
        "n_correct": exact.n_correct,
        "precision": exact.precision,
        "recall": exact.recall,
        "f1": exact.f1,
        "tau": settings.tau,
        "term_precision": at_tau.term_precision,
        "term_recall": at_tau.term_recall,
        "term_f1": at_tau.term_f1,
        "n_parts": at_tau.n_parts,
        "n_matched": at_tau.n_matched,
        "mode": settings.mode,
        "ranked": ranked,
        "n_duplicates": duplicates,
        "label_recall": _label_recall(
            outputs, refs, ref_labels, gold, nn, settings.tau
        ),
        "recall_without_named_entities": _recall_without(outputs, refs, ref_labels),
        "curve": [
            {
                "tau": s.tau,
                "term_precision": s.term_precision,
                "term_recall": s.term_recall,
                "term_f1": s.term_f1,
                "n_parts": s.n_parts,
                "n_matched": s.n_matched,
            }
            for s in curve
        ],
    }
    curves = [
        Curve(
            key="termometer",
            title="Terminological precision, recall and F against tau",
            x_label="tau",
            y_label="score",
            x=TAU_GRID,
            series=(
                ("TP", tuple(s.term_precision for s in curve)),
                ("TR", tuple(s.term_recall for s in curve)),
                ("TF", tuple(s.term_f1 for s in curve)),
            ),
            marker_x=settings.tau,
        ),
        Curve(
            key="matched",
            title="Output terms matching a gold term against tau",
            x_label="tau",
            y_label="output terms",
            x=TAU_GRID,
            series=(
                ("matched", tuple(float(s.n_matched) for s in curve)),
                ("parts", tuple(float(s.n_parts) for s in curve)),
            ),
            marker_x=settings.tau,
        ),
    ]
    if ranked:
        gold_set = set(refs)
        rel = np.array([t in gold_set for t in outputs], dtype=bool)
        n_rel = len(gold_set)
        ap = ranking.average_precision(rel, n_rel)
        metrics["average_precision"] = ap
        payload["average_precision"] = ap
        for k in RANK_KS:
            payload[f"precision_at_{k}"] = ranking.precision_at_k(rel, k)
        payload["r_precision"] = ranking.r_precision(rel, n_rel)
        if len(rel):
            rc = ranking.rank_curves(rel, n_rel)
            idx = ranking.downsample_indices(len(rel))
            curves.append(
                Curve(
                    key="rank",
                    title="Precision and recall against rank",
                    x_label="rank",
                    y_label="score",
                    x=tuple(float(v) for v in rc.k[idx]),
                    series=(
                        ("precision", tuple(float(v) for v in rc.precision[idx])),
                        ("recall", tuple(float(v) for v in rc.recall[idx])),
                    ),
                    log_x=True,
                )
            )
    detail = _detail(terms, gold, nn.index, nn.distance, matched, settings.tau)
    return ScoreReport(
        metrics=metrics,
        payload=payload,
        curves=tuple(curves),
        warnings=tuple(warnings),
        detail=detail,
    )


def _label_recall(
    outputs: tuple[str, ...],
    refs: tuple[str, ...],
    labels: tuple[str | None, ...],
    gold: GoldList,
    nn: Nearest,
    tau: float,
) -> dict[str, JSON]:
    """Per gold label: exact-match recall (on the gold of the scoring mode) and the
    share of the label's normalised gold terms reached by TermoMeter at tau."""
    found = set(outputs)
    exact: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # [n_gold, n_found]
    for term, label in zip(refs, labels, strict=True):
        counts = exact[label or NO_LABEL]
        counts[0] += 1
        counts[1] += term in found
    reached_ids = set(nn.index[nn.within(tau)].tolist())
    near: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # [n_terms, n_reached]
    for i, label in enumerate(gold.labels):
        counts = near[label or NO_LABEL]
        counts[0] += 1
        counts[1] += i in reached_ids
    result: dict[str, JSON] = {}
    for label in sorted(exact):
        n, hit = exact[label]
        n_terms, n_reached = near[label]
        result[label] = {
            "n_gold": n,
            "n_found": hit,
            "recall": hit / n if n else 0.0,
            "n_reached": n_reached,
            "reached_share": n_reached / n_terms if n_terms else 0.0,
        }
    return result


def _recall_without(
    outputs: tuple[str, ...], refs: tuple[str, ...], labels: tuple[str | None, ...]
) -> float | None:
    """Exact-match recall on the gold terms not labelled Named_Entity (TermEval's
    "without NEs" view); None when the gold has no such label."""
    if NAMED_ENTITY not in labels:
        return None
    kept = {t for t, lab in zip(refs, labels, strict=True) if lab != NAMED_ENTITY}
    return len(kept & set(outputs)) / len(kept) if kept else 0.0


def _detail(
    terms: tuple[str, ...],
    gold: GoldList,
    index: np.ndarray,
    distance: np.ndarray,
    matched: np.ndarray,
    tau: float,
) -> dict[str, JSON]:
    """Clusters (gold term -> output terms and distances), unmatched outputs,
    unreached gold terms. Organiser-only."""
    members: dict[int, list[tuple[float, str]]] = defaultdict(list)
    unmatched: list[JSON] = []
    rows = zip(terms, index.tolist(), distance.tolist(), matched.tolist(), strict=True)
    for term, i, d, hit in rows:
        if hit:
            members[i].append((d, term))
        else:
            unmatched.append({"term": term, "nearest": gold.terms[i], "distance": d})
    clusters: list[JSON] = []
    for i in sorted(members):
        items = sorted(members[i])
        clusters.append(
            {
                "gold": gold.terms[i],
                "label": gold.labels[i],
                "line": gold.lines[i],
                "pert": 1.0 - items[0][0],
                "outputs": [{"term": t, "distance": d} for d, t in items],
            }
        )
    unreached: list[JSON] = [
        {"term": t, "label": lab, "line": line}
        for i, (t, lab, line) in enumerate(
            zip(gold.terms, gold.labels, gold.lines, strict=True)
        )
        if i not in members
    ]
    return {
        "tau": tau,
        "clusters": clusters,
        "unmatched_outputs": unmatched,
        "unreached_gold": unreached,
    }
