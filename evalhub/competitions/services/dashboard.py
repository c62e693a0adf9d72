"""The organiser dashboard of a task: queue depth, runs being scored (with their
worker and last heartbeat), failures with their reasons, submissions per day, and
the registrations awaiting the organisers' approval, and the links feature apps offer
for the task (``signals.dashboard_links``) and the panels they show
(``signals.dashboard_panels``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.db.models import Count
from django.db.models.functions import TruncDate

from evalhub.competitions import signals
from evalhub.competitions.models import Phase, Registration, SharedTask, Submission
from evalhub.competitions.services import teams
from evalhub.competitions.services.runs import finals


@dataclass(frozen=True, slots=True)
class Dashboard:
    task: SharedTask
    by_status: tuple[tuple[str, int], ...]
    scoring: tuple[Submission, ...]
    queued: tuple[Submission, ...]
    failed: tuple[Submission, ...]
    per_day: tuple[tuple[date, int], ...]
    pending_registrations: tuple[Registration, ...]
    #: Per phase: each team's chosen final runs and hidden runs.
    finals: tuple[tuple[Phase, list[dict[str, object]]], ...] = ()
    #: (heading, ((label, url), ...)) per feature app that offers pages for the task.
    links: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    #: (template name, context) per panel a feature app shows on the dashboard.
    panels: tuple[tuple[str, object], ...] = ()


def dashboard(*, task: SharedTask) -> Dashboard:
    runs = Submission.objects.filter(phase__task=task).select_related("team", "phase")
    counts = dict(
        runs.values_list("status").annotate(n=Count("pk")).values_list("status", "n")
    )
    by_status = tuple(
        (label, counts.get(value, 0)) for value, label in Submission.Status.choices
    )
    per_day = tuple(
        runs.annotate(day=TruncDate("created_at"))
        .values_list("day")
        .annotate(n=Count("pk"))
        .order_by("-day")
        .values_list("day", "n")[:30]
    )
    return Dashboard(
        task=task,
        by_status=by_status,
        scoring=tuple(
            runs.filter(status=Submission.Status.SCORING).order_by("started_at")
        ),
        queued=tuple(
            runs.filter(
                status__in=[Submission.Status.VALIDATING, Submission.Status.QUEUED]
            ).order_by("created_at")[:50]
        ),
        failed=tuple(
            runs.filter(
                status__in=[Submission.Status.FAILED, Submission.Status.REJECTED]
            ).order_by("-finished_at")[:50]
        ),
        per_day=per_day,
        pending_registrations=teams.pending_registrations(task=task),
        finals=tuple(
            (phase, finals.organiser_overview(phase=phase))
            for phase in task.phases.all()
        ),
        links=tuple(
            (heading, tuple(links))
            for _, answer in signals.dashboard_links.send(sender=SharedTask, task=task)
            if answer is not None
            for heading, links in [answer]
        ),
        panels=tuple(
            answer
            for _, answer in signals.dashboard_panels.send(sender=SharedTask, task=task)
            if answer is not None
        ),
    )
