"""Task-level refreshes asked for: one row per (kind, test set), the truth about
whether a refresh is due, sent or running (``services/boards/refreshes.py``)."""

from __future__ import annotations

from django.db import models

from evalhub.competitions.models.phases import TestSet


class Refresh(models.Model):
    """A test set's statistics or analyses refresh (``kind``), asked for after a
    change of its scores. Kept in the database rather than as a delayed job in the
    broker or a marker in the cache, so that a Redis restart loses no refresh: beat
    sends the job of every row that is due (``refreshes.dispatch``), again if its
    message was lost. Created by the first request; never deleted (it keeps the
    last refresh's duration, which the next delay backs off on)."""

    kind = models.CharField(max_length=32)
    test_set = models.ForeignKey(TestSet, on_delete=models.CASCADE, related_name="+")
    #: Asked for, to run at or after this time; None: nothing asked since the
    #: last refresh began.
    due_at = models.DateTimeField(null=True, blank=True, db_index=True)
    #: When the job of the refresh due was sent (None: not yet, or it began).
    sent_at = models.DateTimeField(null=True, blank=True)
    #: When the refresh running now began (its claim; None: none runs).
    started_at = models.DateTimeField(null=True, blank=True)
    #: How long the last refresh took.
    seconds = models.FloatField(default=0.0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "test_set"], name="refresh_kind_test_set_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} of test set {self.test_set_id}"
