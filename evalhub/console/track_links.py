"""The tracks pages on the task's organiser dashboard (``signals.dashboard_links``;
connected in ``ConsoleConfig.ready``)."""

from __future__ import annotations

from django.dispatch import receiver
from django.urls import reverse

from evalhub.competitions import signals
from evalhub.competitions.models import SharedTask


@receiver(signals.dashboard_links, dispatch_uid="console-track-links")
def track_links(
    sender: object, task: SharedTask, **kwargs: object
) -> tuple[str, list[tuple[str, str]]] | None:
    phases = list(task.phases.all())
    if not phases:
        return None
    return "Tracks", [
        (p.name, reverse("console:track-list", args=[task.slug, p.slug]))
        for p in phases
    ]
