"""The embeds app's answers to the core's extension points: the snippets below
a phase's boards (``signals.leaderboard_panels``)."""

from __future__ import annotations

from django.dispatch import receiver

from evalhub.competitions import signals
from evalhub.competitions.services import roles
from evalhub.embeds.services import snippets


@receiver(signals.leaderboard_panels, dispatch_uid="embeds-snippets")
def embed_snippets(sender, phase, test_sets, track, viewer, **kwargs):  # noqa: ANN001, ANN003, ANN201, ARG001
    """Every viewer gets the same snippets (the page is shared); organisers also
    the way to the console's page of allowed origins."""
    found = snippets.for_phase(phase=phase, test_sets=test_sets, track=track)
    if not found:
        return None
    return (
        "embeds/_panel.html",
        {
            "snippets": found,
            "organiser": roles.is_organiser(viewer, phase.task),
            "task": phase.task,
        },
    )
