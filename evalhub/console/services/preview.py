"""The task page and leaderboards as a participant or the public will see them,
computed for a stand-in viewer (never the organiser), for the organisers' preview.

The public's view is computed for an anonymous user; a participant's for an
anonymous user too, then given what a freshly approved team sees of its own (its
registration, a full allowance in open phases, no runs yet). Nothing here is saved.
"""

from __future__ import annotations

from datetime import UTC, timedelta

from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from evalhub.competitions.models import Registration, SharedTask, Team
from evalhub.competitions.services.boards import board_pages, pages
from evalhub.competitions.services.runs.submit import Allowance

VIEWERS = {"participant": "a participant of an approved team", "public": "the public"}


def task_page(*, task: SharedTask, viewer: str) -> dict[str, object]:
    context = pages.task_page(task=task, user=AnonymousUser())
    context["preview"] = VIEWERS[viewer]
    context["is_organiser"] = False
    if viewer == "participant":
        context["registration"] = Registration(
            task=task,
            team=Team(name="Your team"),
            status=Registration.Status.APPROVED,
        )
        now = timezone.now()
        start = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        for item in context["phases"]:  # type: ignore[attr-defined]
            phase = item["phase"]
            item["allowance"] = (
                Allowance(
                    daily_left=phase.daily_limit,
                    total_left=phase.total_limit,
                    resets_at=start + timedelta(days=1),
                )
                if phase.is_open(now)
                else None
            )
    else:
        context["user"] = AnonymousUser()
    return context


def leaderboard_page(*, task: SharedTask, phase_slug: str) -> dict[str, object]:
    """The public's leaderboard page of a phase (the same boards a participant of
    another team sees). ``Phase.DoesNotExist`` for an unknown phase."""
    phase, test_sets = board_pages.leaderboard_phase(
        slug=task.slug, phase_slug=phase_slug
    )
    context = board_pages.leaderboard_page(
        phase=phase, test_sets=test_sets, user=AnonymousUser()
    )
    context["preview"] = VIEWERS["public"]
    context["user"] = AnonymousUser()
    return context
