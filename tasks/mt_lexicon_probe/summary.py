"""What the organiser's preview shows of reference translations
(``summarise_gold``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from tasks.mt_lexicon_probe.probes import ProbeSet
from tasks.pages import GoldSummary, spread


def summarise_references(
    references: Mapping[str, tuple[str, ...]], probes: ProbeSet
) -> GoldSummary:
    """Counts: probes, probes with references, references in all, probes with
    references per word class × frequency class. Examples: probes with their
    references. Warnings: probes without a reference (judged by annotators only)."""
    with_refs = [p for p in probes.probes if references.get(p.id)]
    cells = Counter(f"{p.pos.value} × {p.freq_class.value}" for p in with_refs)
    counts: list[tuple[str, int]] = [
        ("probes", len(probes.probes)),
        ("probes with references", len(with_refs)),
        ("reference translations", sum(len(references[p.id]) for p in with_refs)),
    ]
    counts += [(f"with references: {cell}", n) for cell, n in sorted(cells.items())]
    missing = len(probes.probes) - len(with_refs)
    warnings = []
    if missing:
        warnings.append(
            f"{missing} of the {len(probes.probes)} probes have no reference "
            "translation: their translations are judged by annotators only"
        )
    examples = spread(
        [f"{p.id} ({p.word}): {' | '.join(references[p.id])}" for p in with_refs]
    )
    return GoldSummary(
        counts=tuple(counts), examples=examples, warnings=tuple(warnings)
    )
