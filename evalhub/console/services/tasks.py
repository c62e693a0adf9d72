"""Creating a task from scratch and changing its settings."""

from __future__ import annotations

from collections.abc import Mapping

from django.db import transaction

from evalhub.competitions.models import SharedTask
from evalhub.competitions.services import roles

#: The task's own fields the console's task form edits.
FIELDS = (
    "title",
    "description",
    "requires_approval",
    "state",
    "submissions_paused",
    "pause_message",
    "max_team_size",
)


def may_preview_markdown(user: object) -> bool:
    """Those who may create tasks and the organisers of a task."""
    return roles.may_create_tasks(user) or bool(
        getattr(user, "is_authenticated", False) and user.organised_tasks.exists()  # type: ignore[attr-defined]
    )


def create_task(*, user: object, data: Mapping[str, object]) -> SharedTask:
    """A new task of ``data["task_type"]`` with its checked settings
    (``data["task_settings"]``); ``user`` becomes its organiser and owner."""
    with transaction.atomic():
        task = SharedTask.objects.create(
            slug=data["slug"],
            task_type=data["task_type"],
            task_settings=data["task_settings"],
            owner=user,
            **{name: data[name] for name in FIELDS},
        )
        task.organisers.add(user)  # type: ignore[arg-type]
    return task


def update_task(*, task: SharedTask, data: Mapping[str, object]) -> SharedTask:
    """Save the task form's fields and settings (the type and address stay)."""
    for name in FIELDS:
        setattr(task, name, data[name])
    task.task_settings = data["task_settings"]
    task.save(update_fields=[*FIELDS, "task_settings"])
    return task
