"""What the participation app adds to the core's flows: the data terms and the
profile a task requires (``participation_check``, asked before every download,
submission and registration), the licence and terms on the task page, a reminder on
the submit page, the dashboard's links, and the roster the organiser API reads
(``services/rosters``); a task's archive keeps its licence, terms and acceptances."""

from __future__ import annotations

from django.dispatch import receiver
from django.urls import reverse

from evalhub.competitions import signals
from evalhub.competitions.models import Phase, SharedTask, Submission
from evalhub.competitions.services import gates, recipients, rosters
from evalhub.competitions.services.archive import parts as archive_parts
from evalhub.participation.models import Acceptance, DataSettings, TermsVersion
from evalhub.participation.services import profiles, roster, terms


@receiver(signals.participation_check, dispatch_uid="participation-check")
def participation_check(
    sender: object, task: SharedTask, user: object, action: str, **kwargs: object
) -> gates.Refusal | None:
    return terms.refusal(task=task, user=user, action=action) or profiles.refusal(
        task=task, user=user, action=action
    )


@receiver(signals.task_page_panels, dispatch_uid="participation-task-panel")
def task_page_panel(sender: object, task: SharedTask, viewer: object, **kwargs: object):  # noqa: ANN201
    state = terms.state(task=task, viewer=viewer)
    if state.version is None and not state.licence:
        return None
    return ("participation/task_panel.html", {"state": state})


@receiver(signals.run_panels, dispatch_uid="participation-run-panels")
def run_panels(
    sender: object,
    phase: Phase,
    viewer: object,
    submission: Submission | None = None,
    **kwargs: object,
):  # noqa: ANN201
    if submission is not None:
        return None
    why = terms.refusal(task=phase.task, user=viewer, action=gates.SUBMIT)
    return None if why is None else ("Data terms", [(why.message, why.path)])


@receiver(signals.dashboard_links, dispatch_uid="participation-dashboard-links")
def dashboard_links(sender: object, task: SharedTask, **kwargs: object):  # noqa: ANN201
    return "Participants", [
        ("Data terms and licence", reverse("console:data-terms", args=[task.slug])),
        ("Participants", reverse("console:participants", args=[task.slug])),
    ]


def _rows(task: SharedTask, key: str, search: str, viewer: object) -> list:
    try:
        return roster.select(task=task, viewer=viewer, filter=key, search=search)
    except roster.UnknownFilter as exc:
        raise rosters.UnknownFilter(str(exc)) from None


rosters.register(
    rosters.Owner(
        filters=roster.filters,
        rows=lambda task, key, search, viewer: roster.as_dicts(
            _rows(task, key, search, viewer)
        ),
        csv=lambda task, key, search, viewer: roster.csv_text(
            _rows(task, key, search, viewer)
        ),
    )
)


# A task's archive keeps its licence, every version of its terms and who accepted
# which (accounts reduced to their user names, as everywhere in an archive).
archive_parts.register(
    archive_parts.Part(
        name="participation",
        models=(DataSettings, TermsVersion, Acceptance),
        rows=lambda task: [
            *DataSettings.objects.filter(task=task),
            *TermsVersion.objects.filter(task=task).order_by("number"),
            *Acceptance.objects.filter(version__task=task).order_by("pk"),
        ],
    )
)


# The organisers' messages may go to the teams with a member who has not accepted
# the terms in force (``competitions/services/recipients.py``; the roster's filter
# asks the same rule, ``terms.missing``).
recipients.register(
    recipients.TeamFilter(
        "terms-not-accepted", "Not accepted the current terms", terms.teams_missing
    )
)
