"""Signals of the teams app (sent after the transaction commits)."""

from __future__ import annotations

from django.dispatch import Signal

#: Sent with ``invitation_id`` when a member invited a user by name or email
#: (link invitations have nobody to tell).
invitation_created = Signal()
#: Sent with ``invitation_id`` when the invitee (or the link's user) joined the team.
invitation_accepted = Signal()
