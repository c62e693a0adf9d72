"""A newly scored mt_lexicon_probe run got automatic tags only: apply the stored
judgements to it (and to nothing else: other runs' scores cannot change)."""

from __future__ import annotations

from django.db import transaction
from django.dispatch import receiver

from evalhub.annotations.models import Judgement
from evalhub.competitions import signals


@receiver(signals.submission_scored, dispatch_uid="annotations-rescore")
def rescore_after_scoring(
    sender: object, submission_id: int, test_set_ids: list[int], **kwargs: object
) -> None:
    from evalhub.annotations import jobs

    judged = (
        Judgement.objects.filter(
            test_set_id__in=test_set_ids,
            test_set__phase__task__task_type="mt_lexicon_probe",
        )
        .values_list("test_set_id", flat=True)
        .distinct()
    )
    for test_set_id in sorted(set(judged)):
        transaction.on_commit(lambda pk=test_set_id: jobs.rescore_judged_runs.delay(pk))
