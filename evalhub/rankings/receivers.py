"""A newly scored run changes a test set's intervals, p-values and Ladder: refresh
them on the worker (the signal is sent after the scores are committed)."""

from __future__ import annotations

from django.db import transaction
from django.dispatch import receiver

from evalhub.competitions import signals


@receiver(signals.submission_scored, dispatch_uid="rankings-refresh")
def refresh_after_scoring(
    sender: object, submission_id: int, test_set_ids: list[int], **kwargs: object
) -> None:
    from evalhub.rankings import jobs

    for test_set_id in sorted(set(test_set_ids)):
        transaction.on_commit(lambda pk=test_set_id: jobs.refresh_statistics.delay(pk))
