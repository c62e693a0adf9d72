"""The score report of one run (``MtLexiconProbe.score_judged``): the paper's tables,
the counts behind them and, per frequency class, how many word classes its mean
rests on (``classes_judged``: the mean is over the word classes with a judged item,
so a run with one judged class is marked as such on the boards, never tied
silently with a run judged in all three; ``TaskType.coverage``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tasks.base import JSON, ScoreReport
from tasks.mt_lexicon_probe.probes import FreqClass, Pos, ProbeSet
from tasks.mt_lexicon_probe.scoring import MEASURES, Tables
from tasks.mt_lexicon_probe.tags import Outcome, TagSource


def classes_judged(tables: Tables) -> dict[str, int]:
    """Per frequency class, the word classes with at least one judged item: the
    ones every ``*_<class>_mean`` averages (``scoring.mean_over_word_classes``)."""
    return {
        fc.value: sum(1 for pos in Pos if tables.cells[(pos, fc)].n_judged)
        for fc in FreqClass
    }


def coverage(payload: Mapping[str, JSON], metric: str) -> tuple[int, int] | None:
    """``(word classes judged, word classes)`` behind ``metric``
    (``<measure>_<freq class>_mean``) from a report's payload; older payloads
    without ``classes_judged`` are read from their ``cells``. None: not said."""
    fc = metric.removesuffix("_mean").rsplit("_", 1)[-1]
    judged = payload.get("classes_judged")
    if isinstance(judged, Mapping) and isinstance(judged.get(fc), int):
        return judged[fc], len(Pos)  # type: ignore[return-value]
    cells = payload.get("cells")
    if not isinstance(cells, Mapping):
        return None
    try:
        n = sum(1 for pos in Pos if cells[pos.value][fc]["n_judged"])  # type: ignore[index]
    except (KeyError, TypeError):
        return None
    return n, len(Pos)


def build(
    inputs: ProbeSet,
    outcomes: Sequence[Outcome],
    tables: Tables,
    warnings: tuple[str, ...],
    *,
    memory_conflicts: int,
) -> ScoreReport:
    metrics: dict[str, float | None] = {
        f"{m}_{fc.value}_mean": tables.mean(m, fc) for m in MEASURES for fc in FreqClass
    }
    metrics["wrong_determiners"] = float(tables.wrong_determiners)
    metrics["n_pending"] = float(tables.n_pending)
    metrics["judged_share"] = (
        tables.n_judged / tables.n_items if tables.n_items else 0.0
    )
    settled = {s.value: n for s, n in tables.settled_by.items()}
    auto = (
        settled[TagSource.AUTO_UNKNOWN.value]
        + settled[TagSource.PROPOSED_CORRECT.value]
    )
    payload: dict[str, JSON] = {m: tables.table(m) for m in MEASURES}
    payload.update(
        wrong_determiners=tables.wrong_determiners,
        n_items=tables.n_items,
        n_judged=tables.n_judged,
        n_pending=tables.n_pending,
        auto_tags=auto,
        provisional=tables.n_pending > 0
        or settled[TagSource.PROPOSED_CORRECT.value] > 0,
        settled_by=settled,
        classes_judged=classes_judged(tables),  # type: ignore[arg-type]
        cells={
            pos.value: {
                fc.value: {
                    "n_items": tables.cells[(pos, fc)].n_items,
                    "n_judged": tables.cells[(pos, fc)].n_judged,
                    "tags": {
                        t.value: n for t, n in tables.cells[(pos, fc)].tags.items()
                    },
                }
                for fc in FreqClass
            }
            for pos in Pos
        },
    )
    if tables.n_pending:
        warnings = warnings + (
            f"{tables.n_pending} item(s) awaiting annotation; scores are over judged items",
        )
    items: list[JSON] = [
        {
            "id": p.id,
            "pos": p.pos.value,
            "freq_class": p.freq_class.value,
            "translation": o.translation,
            "tag": o.tag.value if o.tag else None,
            "source": o.source.value,
            "matched_reference": o.matched,
        }
        for p, o in zip(inputs.probes, outcomes, strict=True)
    ]
    detail: dict[str, JSON] = {"items": items, "memory_conflicts": memory_conflicts}
    return ScoreReport(
        metrics=metrics, payload=payload, warnings=warnings, detail=detail
    )
