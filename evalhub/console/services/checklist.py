"""What is missing before a task can open, each item with the console page that
fixes it (shown on the dashboard through ``competitions.signals.dashboard_panels``)."""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from evalhub.competitions.models import SharedTask


@dataclass(frozen=True, slots=True)
class Item:
    text: str
    url: str
    label: str


def testsets_url(task: SharedTask) -> str:
    """The test set pages (the console's other half); the phase list until they
    exist."""
    try:
        return reverse("console:testsets", kwargs={"slug": task.slug})
    except NoReverseMatch:
        return reverse("console:phases", kwargs={"slug": task.slug})


def checklist(*, task: SharedTask, now=None) -> tuple[Item, ...]:  # noqa: ANN001
    """The problems that keep the task from opening, in the order to fix them;
    empty when it is ready."""
    now = now or timezone.now()
    settings_url = reverse("console:task-settings", kwargs={"slug": task.slug})
    items: list[Item] = []
    if not task.description.strip():
        items.append(Item("The task has no description.", settings_url, "Describe it"))
    phases = list(task.phases.prefetch_related("test_sets__files"))
    if not phases:
        items.append(
            Item(
                "The task has no phase.",
                reverse("console:phase-create", kwargs={"slug": task.slug}),
                "Add a phase",
            )
        )
    task_type = task.type
    roles = [r for r in (*task_type.input_roles, *task_type.gold_roles) if r.required]
    sets_url = testsets_url(task)
    for phase in phases:
        edit = reverse(
            "console:phase-edit", kwargs={"slug": task.slug, "phase": phase.slug}
        )
        # A published task's closed phases are its campaign's past (or its end),
        # not something keeping it from opening.
        if phase.closes_at <= now and task.state == SharedTask.State.DRAFT:
            items.append(
                Item(f"Phase {phase.name} closed already.", edit, "Change its dates")
            )
        test_sets = list(phase.test_sets.all())
        if not test_sets:
            items.append(
                Item(f"Phase {phase.name} has no test set.", sets_url, "Add one")
            )
        for ts in test_sets:
            have = {f.role for f in ts.files.all()}
            for role in roles:
                if role.key not in have:
                    kind = "gold file" if role.private else "input file"
                    items.append(
                        Item(
                            f"Test set {ts.name} ({phase.name}) has no {kind} "
                            f"{role.label}.",
                            sets_url,
                            "Upload it",
                        )
                    )
    if task.state == SharedTask.State.DRAFT:
        items.append(
            Item(
                "The task is still a draft: only organisers see it.",
                settings_url,
                "Publish it",
            )
        )
    return tuple(items)
