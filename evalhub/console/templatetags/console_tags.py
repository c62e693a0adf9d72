"""Template helpers of the console."""

from __future__ import annotations

from dataclasses import dataclass

from django import template
from django.urls import NoReverseMatch, reverse

from evalhub.console.services import checklist

register = template.Library()


@register.simple_tag
def testsets_url(task) -> str:  # noqa: ANN001
    """The test set pages of ``task`` (the console's other half)."""
    return checklist.testsets_url(task)


@dataclass(frozen=True, slots=True)
class NavLink:
    label: str
    url: str
    current: bool


#: The console's navigation: (label, URL name, what the URL takes). Per-phase
#: pages open for the page's phase, else the first; pages other apps provide
#: (ranking, fact sheet, data terms, participants) or that are not there yet (runs)
#: are named, never imported.
_NAV = (
    ("Dashboard", "competitions:task-dashboard", "task"),
    ("Settings", "console:task-settings", "task"),
    ("Phases", "console:phases", "task"),
    ("Tracks", "console:track-list", "phase"),
    ("Test sets and gold", None, "task"),
    ("Ranking", "console:ranking", "phase"),
    ("Embeds", "console:embeds", "task"),
    ("Fact sheet", "factsheets:question-list", "task"),
    ("Organisers", "console:organisers", "task"),
    ("Announcements", "console:announcements", "task"),
    ("Data terms", "console:data-terms", "task"),
    ("Participants", "console:participants", "task"),
    ("Messages", "console:messages", "task"),
    ("Runs", "console:runs", "task"),
    ("After the campaign", "console:after-campaign", "task"),
    ("Preview as a participant", "console:preview-participant", "task"),
    ("Preview as the public", "console:preview-public", "task"),
)


@register.simple_tag(takes_context=True)
def console_nav(context, task) -> list[NavLink]:  # noqa: ANN001
    """The links of the console's navigation for ``task``, the page's own marked."""
    request = context.get("request")
    here = request.path if request is not None else ""
    phase = context.get("phase")
    if getattr(phase, "task_id", None) != task.pk or phase.pk is None:
        phase = task.phases.order_by("order", "opens_at").first()
    links = []
    for label, name, takes in _NAV:
        if name is None:
            url = checklist.testsets_url(task)
        elif takes == "phase" and phase is None:
            url = reverse("console:phases", args=[task.slug])
        else:
            args = [task.slug, phase.slug] if takes == "phase" else [task.slug]
            try:
                url = reverse(name, args=args)
            except NoReverseMatch:
                continue
        links.append(NavLink(label, url, url == here))
    return links


@register.simple_tag
def phase_links(task, phase, url_name: str) -> list[NavLink]:  # noqa: ANN001
    """The page ``url_name`` of each of the task's phases, ``phase``'s marked (the
    switch between phases of a per-phase console page)."""
    return [
        NavLink(p.name, reverse(url_name, args=[task.slug, p.slug]), p.pk == phase.pk)
        for p in task.phases.order_by("order", "opens_at")
    ]
