"""What the organiser's preview shows of a gold term list (``summarise_gold``)."""

from __future__ import annotations

from collections import Counter

from tasks.pages import GoldSummary, spread
from tasks.term_extraction.formats import GoldList, TermExtractionSettings


def summarise_gold(gold: GoldList, settings: TermExtractionSettings) -> GoldSummary:
    """Counts: distinct gold terms, terms per label, lines dropped by the task's
    ``exclude_labels``, lines that merged into another term. Examples: terms spread
    over the list, with their labels and lines."""
    counts: list[tuple[str, int]] = [("gold terms", len(gold.terms))]
    labels = Counter(label or "(no label)" for label in gold.labels)
    if len(labels) > 1 or None not in gold.labels:
        counts += [(f"label {label}", n) for label, n in sorted(labels.items())]
    if settings.exclude_labels:
        counts.append(
            (f"lines left out ({', '.join(settings.exclude_labels)})", gold.n_excluded)
        )
    merged = sum(len(group) - 1 for group in gold.merged_lines)
    counts.append(("lines merged into another term", merged))
    shown = [
        f"line {line}: {term}" + (f" ({label})" if label else "")
        for term, label, line in zip(gold.terms, gold.labels, gold.lines, strict=True)
    ]
    return GoldSummary(
        counts=tuple(counts),
        examples=spread(shown),
        warnings=gold.merge_warnings(),
    )
