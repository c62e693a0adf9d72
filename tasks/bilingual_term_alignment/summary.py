"""What the organiser's preview shows of a gold dictionary (``summarise_gold``)."""

from __future__ import annotations

from collections import Counter

from tasks.bilingual_term_alignment.formats import Gold, Inputs
from tasks.pages import GoldSummary, spread


def summarise_gold(gold: Gold, inputs: Inputs) -> GoldSummary:
    """Counts: distinct gold pairs, the source and target terms they use, source
    terms of D1 with no gold pair (distractors: every pair a run proposes for them is
    wrong), repeated gold
    lines, source terms with several translations. Examples: pairs spread over the
    sorted dictionary."""
    sources = Counter(source for source, _ in gold.pairs)
    targets = {target for _, target in gold.pairs}
    unpaired = len(inputs.source_terms) - len(sources)
    several = sum(1 for n in sources.values() if n > 1)
    counts = (
        ("gold pairs", len(gold.pairs)),
        ("source terms with a pair", len(sources)),
        ("target terms with a pair", len(targets)),
        ("source terms (D1)", len(inputs.source_terms)),
        ("source terms without a gold pair (distractors)", unpaired),
        ("target terms (D2)", len(inputs.target_terms)),
        ("source terms with several translations", several),
        ("repeated gold lines (counted once)", gold.n_duplicates),
    )
    warnings: list[str] = []
    if gold.n_duplicates:
        warnings.append(
            f"{gold.n_duplicates} gold line(s) repeat a pair given before; "
            "each pair counts once"
        )
    return GoldSummary(
        counts=counts,
        examples=spread([f"{s} → {t}" for s, t in gold.sorted_pairs]),
        warnings=tuple(warnings),
    )
