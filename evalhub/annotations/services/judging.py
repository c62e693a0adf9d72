"""Recording, undoing and reading judgements; agreement between annotators.

The current tag of an item (probe, normalised translation) is its newest judgement
that was not retracted, whoever gave it; undoing a judgement lets the previous one
(if any) apply again. Each annotator's own newest judgement per item is what Cohen's
kappa compares.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from django.db import transaction

from evalhub.annotations.models import Judgement
from evalhub.competitions.models import TestSet
from tasks.mt_lexicon_probe.probes import Pos
from tasks.mt_lexicon_probe.scoring import Agreement, annotator_agreement
from tasks.mt_lexicon_probe.tags import Tag, normalise_translation

Item = tuple[str, str]  # (probe id, normalised translation)


class InvalidJudgement(ValueError):
    """The probe, translation or tag does not fit this test set."""


def _after_change(test_set_id: int) -> None:
    from evalhub.annotations import jobs

    transaction.on_commit(lambda: jobs.rescore_judged_runs.delay(test_set_id))


def record(
    *,
    test_set: TestSet,
    user: object,
    probe_id: str,
    translation_key: str,
    tag: str,
) -> Judgement:
    """Tag one item (every system whose translation of ``probe_id`` normalises to
    ``translation_key``) and queue the re-scoring of the test set's runs."""
    from evalhub.annotations.services import systems

    parsed = Tag(tag) if tag in {t.value for t in Tag} else None
    if parsed is None:
        raise InvalidJudgement(f"unknown tag {tag!r}")
    workspace = systems.load(test_set)
    index = {p.id: i for i, p in enumerate(workspace.inputs.probes)}
    if probe_id not in index:
        raise InvalidJudgement("unknown probe item")
    probe = workspace.inputs.probes[index[probe_id]]
    if parsed.nouns_only and probe.pos is not Pos.NOUN:
        raise InvalidJudgement(f"tag {parsed.value} applies to nouns only")
    shown = [
        s.run.translations[index[probe_id]]
        for s in workspace.systems
        if normalise_translation(s.run.translations[index[probe_id]]) == translation_key
    ]
    if not shown:
        raise InvalidJudgement("no run has this translation of the probe")
    with transaction.atomic():
        judgement = Judgement.objects.create(
            test_set=test_set,
            probe_id=probe_id,
            translation_key=translation_key,
            translation=shown[0],
            tag=parsed.value,
            annotator=user,
        )
        _after_change(test_set.pk)
    return judgement


def undo(*, test_set: TestSet, user: object) -> Judgement | None:
    """Retract ``user``'s newest active judgement on the test set (None if none)."""
    with transaction.atomic():
        last = (
            Judgement.objects.filter(
                test_set=test_set, annotator=user, retracted_at__isnull=True
            )
            .order_by("-created_at", "-pk")
            .first()
        )
        if last is None or not Judgement.retract(last.pk, by=user):
            return None
        _after_change(test_set.pk)
    last.refresh_from_db()
    return last


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
