"""Which event tells whom what. Each function takes primary keys (as the signals
send them), re-reads the rows, and is idempotent through the notification key, so a
re-delivered Celery job or signal never notifies twice.

Texts name runs, teams and tasks only: never a score (private test sets stay hidden
until revealed, even from the run's team), a gold item or a failure message.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.urls import reverse

from evalhub.competitions.models import (
    CreatorChange,
    Registration,
    SharedTask,
    Submission,
    TestSet,
)
from evalhub.notifications.services.notify import clip, notify
from evalhub.teams.models import Invitation


def _members(team_id: int) -> list[int]:
    return list(
        get_user_model().objects.filter(teams__pk=team_id).values_list("pk", flat=True)
    )


def _registered_members(task_id: int) -> list[int]:
    return list(
        get_user_model()
        .objects.filter(
            teams__registrations__task_id=task_id,
            teams__registrations__status=Registration.Status.APPROVED,
        )
        .values_list("pk", flat=True)
        .distinct()
    )


def _run(submission_id: int) -> Submission | None:
    return (
        Submission.objects.select_related("phase__task", "team")
        .filter(pk=submission_id)
        .first()
    )


def _finished(sub: Submission) -> str:
    return sub.finished_at.isoformat() if sub.finished_at else ""


def run_scored(*, submission_id: int) -> int:
    sub = _run(submission_id)
    if sub is None or sub.status != Submission.Status.SCORED:
        return 0  # rescored or deleted meanwhile: that later event will tell
    task, phase = sub.phase.task, sub.phase
    return notify(
        recipients=_members(sub.team_id),
        key=f"run:{sub.pk}:scored:{_finished(sub)}",
        text=f"Run {sub.pk} ({sub.method_name}) on {task.title} / {phase.name} "
        "was scored.",
        link=sub.get_absolute_url(),
    )


def run_failed(*, submission_id: int) -> int:
    sub = _run(submission_id)
    if sub is None or sub.status != Submission.Status.FAILED:
        return 0
    task, phase = sub.phase.task, sub.phase
    key = f"run:{sub.pk}:failed:{_finished(sub)}"
    n = notify(
        recipients=_members(sub.team_id),
        key=key,
        text=f"Run {sub.pk} ({sub.method_name}) on {task.title} / {phase.name} "
        f"failed ({sub.get_failure_category_display().lower()}).",
        link=sub.get_absolute_url(),
        mail=True,
    )
    if sub.failure_category == Submission.Failure.INFRASTRUCTURE:
        n += notify(
            recipients=task.organisers.all(),
            key=f"{key}:organiser",
            text=f"Run {sub.pk} of team {sub.team.name} on {task.title} failed with "
            "an infrastructure error.",
            link=reverse("competitions:task-dashboard", args=[task.slug]),
        )
    return n


def run_rejected(*, submission_id: int) -> int:
    """A large run file the worker's full check rejected: its team is told on the
    site and by mail (the problems are on the run page, for the team only)."""
    sub = _run(submission_id)
    if sub is None or sub.status != Submission.Status.REJECTED:
        return 0
    return notify(
        recipients=_members(sub.team_id),
        key=f"run:{sub.pk}:rejected",
        text=f"Run {sub.pk} ({sub.method_name}) on {sub.phase.task.title} / "
        f"{sub.phase.name} was rejected: the file did not pass its check.",
        link=sub.get_absolute_url(),
        mail=True,
    )


def registration_decided(*, registration_id: int) -> int:
    reg = (
        Registration.objects.select_related("task", "team")
        .filter(pk=registration_id)
        .first()
    )
    if reg is None or reg.status == Registration.Status.PENDING:
        return 0
    verb = "approved" if reg.status == Registration.Status.APPROVED else "rejected"
    return notify(
        recipients=_members(reg.team_id),
        key=f"registration:{reg.pk}:{reg.status}",
        text=f"The organisers {verb} the registration of team {reg.team.name} for "
        f"{reg.task.title}.",
        link=reg.task.get_absolute_url(),
    )


def test_set_revealed(*, test_set_id: int) -> int:
    ts = TestSet.objects.select_related("phase__task").filter(pk=test_set_id).first()
    if ts is None or not ts.revealed:
        return 0
    phase, task = ts.phase, ts.phase.task
    return notify(
        recipients=_registered_members(task.pk),
        key=f"testset:{ts.pk}:revealed",
        text=f"The private results of {ts.name} ({task.title} / {phase.name}) are "
        "now public.",
        link=reverse("competitions:leaderboard-detail", args=[task.slug, phase.slug]),
        mail=True,
    )


def gold_released(*, task_id: int) -> int:
    task = SharedTask.objects.filter(pk=task_id, gold_released=True).first()
    if task is None:
        return 0
    return notify(
        recipients=_registered_members(task.pk),
        key=f"task:{task.pk}:gold-released",
        text=f"The organisers of {task.title} released the gold standard: per-item "
        "results are now on the run pages.",
        link=task.get_absolute_url(),
        mail=True,
    )


def creator_granted(*, change_id: int) -> int:
    """Site staff granted a user the right to create tasks: the user is told, on
    the site and by mail, with the way to the new-task page."""
    change = CreatorChange.objects.filter(pk=change_id, granted=True).first()
    if change is None:
        return 0
    return notify(
        recipients=[change.user_id],
        key=f"creator:{change.pk}:granted",
        text="Site staff granted you the right to create tasks: you can now create "
        "a task (from scratch or from a bundle) and organise it.",
        link=reverse("console:task-create"),
        mail=True,
    )


def invitation_created(*, invitation_id: int) -> int:
    inv = (
        Invitation.objects.select_related("team", "inviter")
        .filter(pk=invitation_id, status=Invitation.Status.PENDING)
        .first()
    )
    if inv is None or inv.invitee_id is None:
        return 0
    who = inv.inviter.username if inv.inviter else "A member"
    return notify(
        recipients=[inv.invitee_id],
        key=f"invitation:{inv.pk}:received",
        text=f"{who} invited you to join team {inv.team.name}.",
        link=inv.get_absolute_url(),
    )


def invitation_accepted(*, invitation_id: int) -> int:
    inv = (
        Invitation.objects.select_related("team", "accepted_by")
        .filter(pk=invitation_id, status=Invitation.Status.ACCEPTED)
        .first()
    )
    if inv is None or inv.accepted_by is None:
        return 0
    return notify(
        recipients=[pk for pk in _members(inv.team_id) if pk != inv.accepted_by_id],
        key=f"invitation:{inv.pk}:accepted",
        text=f"{inv.accepted_by.username} accepted the invitation and joined team "
        f"{inv.team.name}.",
        link=reverse("teams:team-detail", args=[inv.team_id]),
    )


def announcement_posted(*, announcement_id: int) -> int:
    """An organisers' announcement: every member of every approved team of the task,
    its whole text (plain text, at most 220 characters: it fits a notification)."""
    from evalhub.console.models import Announcement

    ann = Announcement.objects.select_related("task").filter(pk=announcement_id).first()
    if ann is None:
        return 0
    task = ann.task
    return notify(
        recipients=_registered_members(task.pk),
        key=f"announcement:{ann.pk}",
        text=f"Announcement ({clip(task.title, 60)}): {ann.text}",
        link=task.get_absolute_url(),
        mail=True,
    )
