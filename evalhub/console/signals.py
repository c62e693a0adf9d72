"""Signals of the console (sent after the transaction commits), for the
notifications app; the console never imports its listeners."""

from __future__ import annotations

from django.dispatch import Signal

#: Sent with ``announcement_id`` once an organiser's announcement is stored. The
#: notifications app tells every member of every approved team of the task.
announcement_posted = Signal()
