"""The pages' contents: the organisers' question list, and the fact-sheet overview
of a phase (a team's members: their team's methods; organisers: every team's)."""

from __future__ import annotations

from django.db.models import Count

from evalhub.competitions.models import Phase, Registration, SharedTask, Team
from evalhub.competitions.services import roles
from evalhub.competitions.services.boards import access
from evalhub.factsheets.models import Question
from evalhub.factsheets.services import sheets


def questions_page(*, task: SharedTask, form: object) -> dict[str, object]:
    return {
        "task": task,
        "questions": list(
            Question.objects.filter(task=task).annotate(n_answers=Count("answers"))
        ),
        "form": form,
    }


def sheets_page(*, phase: Phase, user: object) -> dict[str, object] | None:
    """``None`` when ``user`` may not see it (neither an organiser nor a member of
    a team registered for the task)."""
    task = phase.task
    organiser = roles.is_organiser(user, task)
    if organiser:
        teams = Team.objects.filter(registrations__task=task).order_by("name")
    elif access.can_see_task(user, task):
        teams = Team.objects.filter(registrations__task=task, members=user).exclude(
            registrations__status=Registration.Status.REJECTED
        )
    else:
        return None
    teams = list(teams.distinct())
    if not teams and not organiser:
        return None
    methods = sheets.team_methods(phase=phase, teams=teams)
    return {
        "task": task,
        "phase": phase,
        "is_organiser": organiser,
        "n_questions": Question.objects.filter(task=task).count(),
        "teams": [(team, methods[team.pk]) for team in teams],
    }
