"""Per-probe statistics of the primary metric (``correct_low_mean``).

correct_low_mean = mean over the word classes (adj, noun, verb) with at least one
judged low-frequency item of (judged - n_u - n_w - n_m) / judged (Volk 1997). Each
low-frequency probe is one item with row ``[judged_adj, correct_adj, judged_noun,
correct_noun, judged_verb, correct_verb]`` (1s in its own word class's columns only;
formula ``mean_of_ratios``), keyed by probe id. Pending items (and proposed ``c`` when
the task does not count them) are not judged, exactly as in :func:`scoring.tabulate`.

Example: low items adj:c, adj:w, noun:c -> adj 1/2, noun 1/1 -> mean 0.75.

Unit (``TaskType.unit``): the probe word. Volk's tables count each low-frequency probe
word once, judged once, so the interval and both paired tests resample probe words.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from tasks.base import JSON
from tasks.common.resampling import ItemStats
from tasks.mt_lexicon_probe.probes import FreqClass, Pos
from tasks.mt_lexicon_probe.tags import NOT_CORRECT, Tag, TagSource

POS_ORDER = tuple(p.value for p in Pos)


def item_stats(
    detail: Mapping[str, JSON], payload: Mapping[str, JSON]
) -> ItemStats | None:
    items = detail.get("items")
    if not isinstance(items, list):
        return None
    settled = payload.get("settled_by")
    proposed_counted = not (
        isinstance(settled, dict) and settled.get(TagSource.PROPOSED_CORRECT.value) == 0
    )
    keys: list[str] = []
    rows: list[list[float]] = []
    for item in items:
        if not isinstance(item, dict):
            return None
        if item.get("freq_class") != FreqClass.LOW.value:
            continue
        row = [0.0] * (2 * len(POS_ORDER))
        tag, source = item.get("tag"), item.get("source")
        judged = (
            tag is not None
            and source != TagSource.PENDING.value
            and (proposed_counted or source != TagSource.PROPOSED_CORRECT.value)
        )
        if judged:
            col = 2 * POS_ORDER.index(str(item["pos"]))
            row[col] = 1.0
            row[col + 1] = 0.0 if Tag(str(tag)) in NOT_CORRECT else 1.0
        keys.append(str(item["id"]))
        rows.append(row)
    return ItemStats(
        keys=tuple(keys),
        values=np.array(rows, dtype=np.float64).reshape(-1, 2 * len(POS_ORDER)),
        formula="mean_of_ratios",
    )
