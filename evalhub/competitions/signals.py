"""Signals other apps listen to (sent after the transaction commits)."""

from __future__ import annotations

from django.dispatch import Signal

#: Sent with ``submission_id`` and ``test_set_ids`` once a run is scored.
submission_scored = Signal()
