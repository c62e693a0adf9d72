"""Reading judgements: the current tag of each item, an item's history, and the
agreement between annotators.

The current tag of an item (probe, normalised translation) is its newest judgement
that was not retracted, whoever gave it. Each annotator's own newest judgement per
item is what Cohen's kappa compares.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from evalhub.annotations.models import Judgement
from evalhub.competitions.models import TestSet
from tasks.mt_lexicon_probe.scoring import Agreement, annotator_agreement
from tasks.mt_lexicon_probe.tags import Tag

Item = tuple[str, str]  # (probe id, normalised translation)


def current_tags(*, test_set: TestSet) -> dict[Item, Tag]:
    """The tag each judged item has now: its newest active judgement."""
    out: dict[Item, Tag] = {}
    for probe_id, key, tag in (
        Judgement.objects.filter(test_set=test_set, retracted_at__isnull=True)
        .order_by("created_at", "pk")
        .values_list("probe_id", "translation_key", "tag")
    ):
        out[(probe_id, key)] = Tag(tag)
    return out


def history(*, test_set: TestSet, probe_id: str) -> list[Judgement]:
    """Every judgement of one probe item, newest first (retracted ones too)."""
    return list(
        Judgement.objects.filter(test_set=test_set, probe_id=probe_id)
        .select_related("annotator", "retracted_by")
        .order_by("-created_at", "-pk")
    )


@dataclass(frozen=True, slots=True)
class PairAgreement:
    first: str
    second: str
    agreement: Agreement


def agreement(*, test_set: TestSet) -> list[PairAgreement]:
    """Cohen's kappa for every pair of annotators over the items both tagged."""
    per_annotator: dict[str, dict[str, Tag]] = {}
    for name, probe_id, key, tag in (
        Judgement.objects.filter(test_set=test_set, retracted_at__isnull=True)
        .order_by("created_at", "pk")
        .values_list("annotator__username", "probe_id", "translation_key", "tag")
    ):
        per_annotator.setdefault(name, {})[f"{probe_id}\t{key}"] = Tag(tag)
    out = []
    for a, b in itertools.combinations(sorted(per_annotator), 2):
        result = annotator_agreement(per_annotator[a], per_annotator[b])
        if result.n_items:
            out.append(PairAgreement(a, b, result))
    return out
