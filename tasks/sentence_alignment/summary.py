"""What the organiser's preview shows of reference alignments (``summarise_gold``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from tasks.pages import GoldSummary, spread
from tasks.sentence_alignment.formats import AlignmentSet, Document


def summarise_gold(gold: AlignmentSet, documents: Sequence[Document]) -> GoldSummary:
    """Counts: documents, reference bisegments, bisegments by shape (1-1, 1-2, 0-1,
    ...), sentences of each side in no bisegment, repeated bisegments. Examples: a
    few bisegments with their sentences, spread over the documents."""
    shapes: Counter[str] = Counter()
    unaligned_source = unaligned_target = duplicates = 0
    shown: list[str] = []
    by_name = {d.name: d for d in documents}
    for alignment in gold.alignments:
        document = by_name[alignment.document]
        duplicates += alignment.duplicates
        aligned_source: set[int] = set()
        aligned_target: set[int] = set()
        for bisegment in alignment.bisegments:
            shapes[f"{len(bisegment.source)}-{len(bisegment.target)}"] += 1
            aligned_source.update(bisegment.source)
            aligned_target.update(bisegment.target)
        unaligned_source += len(document.source) - len(aligned_source)
        unaligned_target += len(document.target) - len(aligned_target)
        for bisegment in spread(alignment.bisegments, 2):
            source = " ".join(document.source[i] for i in bisegment.source)
            target = " ".join(document.target[i] for i in bisegment.target)
            shown.append(
                f"{alignment.document} {bisegment}: {_cut(source)} ⇔ {_cut(target)}"
            )
    n_bisegments = sum(shapes.values())
    counts: list[tuple[str, int]] = [
        ("documents", len(gold.alignments)),
        ("bisegments", n_bisegments),
    ]
    counts += [(f"{shape} bisegments", n) for shape, n in sorted(shapes.items())]
    counts += [
        ("source sentences in no bisegment", unaligned_source),
        ("target sentences in no bisegment", unaligned_target),
        ("repeated bisegments (counted once)", duplicates),
    ]
    warnings = []
    if duplicates:
        warnings.append(f"{duplicates} bisegment(s) repeat one given before")
    empty = [a.document for a in gold.alignments if not a.sources]
    if empty:
        warnings.append(f"no bisegment for document(s): {', '.join(empty[:10])}")
    return GoldSummary(
        counts=tuple(counts), examples=spread(shown, 6), warnings=tuple(warnings)
    )


def _cut(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"
