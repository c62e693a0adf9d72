"""What fact sheets add to the core's flows: columns of answers and papers on
boards and exports (``system_columns``), the complete-sheet rule of final runs
(``final_choice_check``), the panels of the run and submit pages, the sheet's
state on a team's "My runs" page (``run_states``), the organiser
dashboard's link, the bundle's ``factsheet`` section, the demo's fact sheet and
the filters of the organisers' messages (teams without a fact sheet or a paper)."""

from __future__ import annotations

from django.dispatch import receiver
from django.urls import reverse

from evalhub.competitions import signals
from evalhub.competitions.models import Phase, SharedTask, Submission
from evalhub.competitions.services import recipients
from evalhub.competitions.services.archive import parts as archive_parts
from evalhub.factsheets.models import Answer, PaperLink, Question
from evalhub.factsheets.services import columns, demo, panels, questions, sheets


@receiver(signals.system_columns, dispatch_uid="factsheets-columns")
def system_columns(sender: object, phase: Phase, viewer: object, **kwargs: object):  # noqa: ANN201
    return columns.columns(phase=phase, viewer=viewer)


@receiver(signals.final_choice_check, dispatch_uid="factsheets-final-check")
def final_choice_check(
    sender: object, submission: Submission, **kwargs: object
) -> str | None:
    return sheets.incomplete_reason(submission)


@receiver(signals.run_panels, dispatch_uid="factsheets-run-panels")
def run_panels(
    sender: object,
    phase: Phase,
    viewer: object,
    submission: Submission | None = None,
    **kwargs: object,
):  # noqa: ANN201
    return panels.panel(phase=phase, viewer=viewer, submission=submission)


@receiver(signals.run_states, dispatch_uid="factsheets-run-states")
def run_states(
    sender: object, phase: Phase, viewer: object, runs: list, **kwargs: object
):  # noqa: ANN201
    return panels.run_states(phase=phase, viewer=viewer, runs=runs)


@receiver(signals.dashboard_links, dispatch_uid="factsheets-dashboard-links")
def dashboard_links(sender: object, task: SharedTask, **kwargs: object):  # noqa: ANN201
    return "Fact sheet", [
        ("Questions", reverse("factsheets:question-list", args=[task.slug]))
    ]


@receiver(signals.bundle_export, dispatch_uid="factsheets-bundle-export")
def bundle_export(sender: object, task: SharedTask, **kwargs: object):  # noqa: ANN201
    section = questions.export_section(task=task)
    return None if section is None else (questions.SECTION, section)


@receiver(signals.bundle_import, dispatch_uid="factsheets-bundle-import")
def bundle_import(sender: object, task: SharedTask, sections: dict, **kwargs: object):  # noqa: ANN201
    if questions.SECTION not in sections:
        return None
    return questions.import_section(task=task, section=sections[questions.SECTION])


@receiver(signals.demo_seeded, dispatch_uid="factsheets-demo")
def demo_seeded(sender: object, tasks: list, **kwargs: object) -> None:
    demo.seed(tasks=tasks)


# A task's archive keeps its questions, every team's answers and the papers.
archive_parts.register(
    archive_parts.Part(
        name="factsheets",
        models=(Question, Answer, PaperLink),
        rows=lambda task: [
            *Question.objects.filter(task=task).order_by("pk"),
            *Answer.objects.filter(question__task=task).order_by("pk"),
            *PaperLink.objects.filter(phase__task=task).order_by("pk"),
        ],
    )
)

# The organisers' messages may go to the teams that still owe a fact sheet or a
# paper (``competitions/services/recipients.py``).
recipients.register(
    recipients.TeamFilter(
        "no-fact-sheet",
        "No fact sheet (no question answered)",
        lambda task, approved: approved.exclude(factsheet_answers__phase__task=task),
    )
)
recipients.register(
    recipients.TeamFilter(
        "no-paper-link",
        "No paper link",
        lambda task, approved: approved.exclude(papers__phase__task=task),
    )
)
