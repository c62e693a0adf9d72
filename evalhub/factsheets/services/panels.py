"""What the run page and the submit page show of fact sheets and papers (the
core's ``run_panels`` extension point): ``(heading, [(text, url), ...])``.

On a run page: the method's answers and paper to whoever may see them
(``services/columns.py``: the team and the organisers always, everyone else when the
method has a run shown to the public), and to the team the links to edit the sheet
and to attach the paper. On the submit page: the team's fact-sheet overview.
"""

from __future__ import annotations

import functools

from django.urls import reverse

from evalhub.competitions.models import Phase, Registration, Submission
from evalhub.factsheets.models import Question
from evalhub.factsheets.services import columns, papers, sheets

Items = list[tuple[str, str]]


def panel(
    *, phase: Phase, viewer: object, submission: Submission | None
) -> tuple[str, Items] | None:
    if submission is None:
        return _submit_panel(phase=phase, viewer=viewer)
    return _run_panel(submission=submission, viewer=viewer)


def _submit_panel(*, phase: Phase, viewer: object) -> tuple[str, Items] | None:
    if not getattr(viewer, "is_authenticated", False):
        return None
    if not Question.objects.filter(task_id=phase.task_id).exists():
        return None
    if not Registration.objects.filter(
        task_id=phase.task_id,
        team__members=viewer,
        status=Registration.Status.APPROVED,
    ).exists():
        return None
    url = reverse("factsheets:team-sheets", args=[phase.task.slug, phase.slug])
    return "Fact sheet", [
        (
            "Each method you submit has a fact sheet to fill in (a final run needs "
            "its required answers).",
            "",
        ),
        ("Your team's fact sheets", url),
    ]


def _run_panel(*, submission: Submission, viewer: object) -> tuple[str, Items] | None:
    items: Items = []
    questions = sheets.questions_of(submission.phase.task_id)
    own = sheets.can_read(viewer, submission, questions)
    described = functools.cache(lambda: own or _publicly_described(submission, viewer))
    if questions and described():
        answers = sheets.answers_of(
            phase=submission.phase,
            team_id=submission.team_id,
            method_name=submission.method_name,
        )
        for question in questions:
            if answers.get(question.pk):
                items.append((f"{question.label}: {answers[question.pk]}", ""))
        if own:
            missing = sheets.missing_questions(questions, answers)
            state = (
                "complete"
                if not missing
                else f"{len(missing)} required question"
                f"{'s' if len(missing) != 1 else ''} unanswered"
            )
            verb = "Read" if sheets.frozen_reason(viewer, submission) else "Edit"
            items.append(
                (
                    f"{verb} the fact sheet of {submission.method_name!r} ({state})",
                    reverse("factsheets:run-sheet", args=[submission.pk]),
                )
            )
    paper = papers.paper_of(submission)
    if paper is not None and described():
        items.append((f"Paper: {paper.title}", paper.link))
    if not papers.refusal(viewer, submission):
        items.append(
            (
                "Change the paper" if paper else "Attach the system-description paper",
                reverse("factsheets:run-paper", args=[submission.pk]),
            )
        )
    return ("Fact sheet and paper", items) if items else None


def _publicly_described(submission: Submission, viewer: object) -> bool:
    shown = columns.visible_systems(phase=submission.phase, viewer=viewer)
    return shown is None or (submission.team_id, submission.method_name) in shown


def run_states(
    *, phase: Phase, viewer: object, runs: list[Submission]
) -> tuple[str, dict[int, tuple[str, str]]] | None:
    """The "Fact sheet" column of a team's "My runs" page: per run its method's
    sheet state ("complete", or how many required answers are missing) and the
    link to it, for the runs whose sheet the viewer may read."""
    questions = list(Question.objects.filter(task_id=phase.task_id))
    if not questions:
        return None
    states: dict[int, tuple[str, str]] = {}
    readable = []
    for run in runs:
        if run.phase_id == phase.pk:
            run.phase = phase  # the rule reads the run's task: no query per run
        if sheets.can_read(viewer, run, questions):
            readable.append(run)
    answers = sheets.answers_of_systems(
        phase=phase, team_ids={run.team_id for run in readable}
    )
    for run in readable:
        missing = sheets.missing_questions(
            questions, answers.get((run.team_id, run.method_name), {})
        )
        text = (
            "complete"
            if not missing
            else f"{len(missing)} required answer{'s' if len(missing) != 1 else ''}"
            " missing"
        )
        states[run.pk] = (text, reverse("factsheets:run-sheet", args=[run.pk]))
    return "Fact sheet", states
