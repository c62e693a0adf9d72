"""Recording and undoing judgements; each change queues the re-scoring of the test
set's runs (after commit). Reading them (current tags, history, agreement) is
``judgements``: re-scoring reads, so it must not import what queues it.

Undoing a judgement lets the previous one (if any) apply again.
"""

from __future__ import annotations

from django.db import transaction

from evalhub.annotations import jobs
from evalhub.annotations.models import Judgement
from evalhub.annotations.services import systems
from evalhub.competitions.models import TestSet
from tasks.mt_lexicon_probe.probes import Pos
from tasks.mt_lexicon_probe.tags import Tag, normalise_translation


class InvalidJudgement(ValueError):
    """The probe, translation or tag does not fit this test set."""


def _after_change(test_set_id: int) -> None:
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
