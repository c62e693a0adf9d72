"""Per-document statistics of the primary F1 for bootstrap intervals and tests.

The test-set F1 at the primary granularity is micro-averaged: P = sum c_p / sum
proposed, R = sum c_r / sum reference over documents. Each document is one item with
row ``[c_p, proposed, c_r, reference]`` at that granularity (formula ``f_measure``),
keyed by document name; a resample draws whole documents (a block bootstrap, since
bisegments of one document are not independent).

Example: documents with counts [1, 3, 1, 2] and [2, 2, 2, 2] -> P = 3/5, R = 3/4,
F = 2/3.

Unit (``TaskType.unit``): the document (ARCADE scores texts; a document's bisegments
share its alignment path). With few documents no paired test can reach alpha, and the
board says so (:mod:`tasks.common.resampling.bands`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from tasks.base import JSON
from tasks.common.resampling import ItemStats

FIELDS = ("correct", "proposed", "correct_reference", "reference")


def item_stats(
    detail: Mapping[str, JSON], payload: Mapping[str, JSON], metric: str = "f1"
) -> ItemStats | None:
    """The per-document statistics of ``metric``: ``f1`` (at the primary
    granularity) or ``<level>_f1`` (at that level: the same rows, its counts)."""
    documents = detail.get("documents")
    level = payload.get("primary_granularity") if metric == "f1" else None
    if metric.endswith("_f1") and metric != "mean_f1":
        level = metric.removesuffix("_f1")
    if not isinstance(documents, list) or not isinstance(level, str):
        return None
    keys: list[str] = []
    rows: list[list[float]] = []
    for doc in documents:
        if not isinstance(doc, dict):
            return None
        counts = doc["counts"]
        if not isinstance(counts, dict):
            return None
        at_level = counts[level]
        if not isinstance(at_level, dict):
            return None
        keys.append(str(doc["document"]))
        rows.append([float(at_level[f]) for f in FIELDS])  # type: ignore[arg-type]
    return ItemStats(
        keys=tuple(keys),
        values=np.array(rows, dtype=np.float64).reshape(-1, 4),
        formula="f_measure",
    )
