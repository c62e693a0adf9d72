"""Every run of a task, for its organisers (the console's *Runs* page).

The list shows each run's status, team, phase, track, method, submission time, marks
(hidden, final, baseline) and its primary score on every test set of its phase
(every metric on demand, and in the CSV export: ``run_scores``), as
the one visibility rule answers for the viewer (``boards/visibility.py``: organisers see every score at once, whatever a private test
set or the Ladder withholds from the public). Filters and a search narrow it; it is
shown a page at a time, with a fixed number of queries per page whatever the number
of runs (one per table, no query per run).

Bulk actions on a selection (the runs ticked on a page, or every run matching the
filters) call the services that own each change: rescoring
``runs/lifecycle.rescore``, hiding and showing ``runs/hiding.set_hidden_by_organiser``,
and the download the existing export of a phase's runs as a zip
(``boards/exports.runs_zip``: a temporary file, spilled to disk beyond 16 MiB).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import IO

from django.core.paginator import Page, Paginator
from django.db import transaction
from django.db.models import Q, QuerySet

from evalhub.competitions.models import (
    Phase,
    SharedTask,
    Submission,
    Team,
    Track,
)
from evalhub.competitions.services.boards import exports
from evalhub.competitions.services.runs import hiding, lifecycle
from evalhub.console.services import run_scores
from evalhub.console.services.run_scores import ScoreCell

#: Runs per page.
PER_PAGE = 50
#: Runs shown by name on a confirmation page (the rest are counted).
SAMPLE = 20

RESCORE, HIDE, SHOW, DOWNLOAD = "rescore", "hide", "show", "download"
ACTIONS = (
    (RESCORE, "Rescore"),
    (HIDE, "Hide from the public"),
    (SHOW, "Show to the public"),
    (DOWNLOAD, "Download as a zip"),
)


class Refused(Exception):
    """The action cannot be done on this selection; the message says why."""


@dataclass(frozen=True, slots=True)
class Filters:
    status: str = ""
    phase: Phase | None = None
    track: Track | None = None
    team: Team | None = None
    hidden: bool | None = None
    final: bool | None = None
    #: a team or method name (part of it), or a run number ("#12" or "12")
    query: str = ""


def matching(*, task: SharedTask, filters: Filters) -> QuerySet[Submission]:
    """The task's runs that pass ``filters``, newest first."""
    runs = Submission.objects.filter(phase__task=task)
    if filters.status:
        runs = runs.filter(status=filters.status)
    if filters.phase is not None:
        runs = runs.filter(phase=filters.phase)
    if filters.track is not None:
        runs = runs.filter(track=filters.track)
    if filters.team is not None:
        runs = runs.filter(team=filters.team)
    if filters.hidden is not None:
        runs = runs.filter(hidden=filters.hidden)
    if filters.final is not None:
        runs = runs.filter(final_selected=filters.final)
    query = filters.query.strip()
    if query:
        found = Q(team__name__icontains=query) | Q(method_name__icontains=query)
        number = query.removeprefix("#")
        if number.isdigit():
            found |= Q(pk=int(number))
        runs = runs.filter(found)
    return runs.order_by("-created_at", "-pk")


@dataclass(frozen=True, slots=True)
class Row:
    run: Submission
    scores: tuple[ScoreCell, ...]


@dataclass(frozen=True, slots=True)
class RunPage:
    rows: tuple[Row, ...]
    page: Page
    #: the label of the primary metric the score cells show
    metric_label: str


def page(
    *, task: SharedTask, viewer: object, filters: Filters, number: object
) -> RunPage:
    """One page of the runs matching ``filters`` with their scores; ``number`` as
    given in the address (out of range: the last page)."""
    paginator = Paginator(
        matching(task=task, filters=filters).select_related(
            "team", "phase", "track", "hidden_by_organisers_by"
        ),
        PER_PAGE,
    )
    current = paginator.get_page(number)
    runs = list(current.object_list)
    scores = run_scores.cells(task=task, viewer=viewer, runs=runs)
    rows = tuple(Row(run=r, scores=scores[r.pk]) for r in runs)
    metric = task.type.metric(task.type.primary_metric)
    return RunPage(rows=rows, page=current, metric_label=metric.label)


def selection(
    *, task: SharedTask, filters: Filters, run_ids: Iterable[int] | None
) -> QuerySet[Submission]:
    """The runs a bulk action acts on: those of ``run_ids`` (ticked on the page) or,
    with ``None``, every run matching ``filters``; never another task's runs."""
    if run_ids is None:
        return matching(task=task, filters=filters)
    runs = Submission.objects.filter(phase__task=task, pk__in=list(run_ids))
    return runs.order_by("-created_at", "-pk")


@dataclass(frozen=True, slots=True)
class Plan:
    """What a bulk action will do, for the confirmation page."""

    action: str
    label: str
    selected: int
    #: how many of the selected runs the action changes
    changes: int
    #: what happens, in a sentence or two
    effect: str
    sample: tuple[Submission, ...]

    @property
    def more(self) -> int:
        """Selected runs not named in ``sample``."""
        return self.selected - len(self.sample)


def _runs(n: int) -> str:
    return f"{n} run{'' if n == 1 else 's'}"


def plan(*, action: str, runs: QuerySet[Submission]) -> Plan:
    selected = runs.count()
    if action == RESCORE:
        changes = runs.filter(status__in=lifecycle.RESCORABLE).count()
        effect = (
            f"{_runs(changes)} will be scored again on the current gold with the "
            "current scorer (the scores they have now are kept for the rescoring "
            "page)."
        )
        if selected > changes:
            effect += (
                f" {_runs(selected - changes)} of the selection cannot be rescored "
                "(only scored or failed runs can) and will stay as they are."
            )
    elif action in (HIDE, SHOW):
        hide = action == HIDE
        changes = runs.exclude(hidden=hide).count()
        if hide:
            effect = (
                f"{_runs(changes)} will be hidden: shown only to their teams and "
                "the organisers, taken off the public boards, exports and the API. "
                "The hiding is recorded as the organisers' decision (who, when): "
                "the teams see that the organisers hid their runs, and only the "
                "organisers can show them again."
            )
        else:
            effect = (
                f"{_runs(changes)} will be shown to everyone again, their scores "
                "as the leak rules allow (private test sets only once revealed, "
                "the Ladder's decisions)."
            )
        if selected > changes:
            state = "hidden" if hide else "shown"
            effect += f" {_runs(selected - changes)} already {state} stay as they are."
    else:
        raise Refused("No such action.")
    label = dict(ACTIONS)[action]
    sample = tuple(runs.select_related("team", "phase")[:SAMPLE])
    return Plan(action, label, selected, changes, effect, sample)


def perform(
    *, task: SharedTask, user: object, action: str, runs: QuerySet[Submission]
) -> str:
    """Do ``action`` on ``runs``; returns what happened, for the organiser."""
    ids = list(runs.values_list("pk", flat=True))
    if action == RESCORE:
        with transaction.atomic():
            n = lifecycle.rescore(submission_ids=ids)
        told = f"{_runs(n)} queued for rescoring."
        if len(ids) > n:
            told += (
                f" {_runs(len(ids) - n)} left as they are (only scored or failed "
                "runs can be rescored)."
            )
        return told
    if action in (HIDE, SHOW):
        hide = action == HIDE
        n = hiding.set_hidden_by_organiser(
            task=task, user=user, submission_ids=ids, hidden=hide
        )
        told = f"{_runs(n)} {'hidden' if hide else 'shown to the public'}."
        if len(ids) > n:
            told += f" {_runs(len(ids) - n)} already {'hidden' if hide else 'shown'}."
        return told
    raise Refused("No such action.")


def download(
    *, task: SharedTask, user: object, runs: QuerySet[Submission]
) -> tuple[IO[bytes], str]:
    """The selected runs' files with the manifest, as the export of a phase's runs
    makes them (one phase at a time: the manifest has a column per test set of the
    phase); the zip and its file name."""
    phase_ids = set(runs.order_by().values_list("phase_id", flat=True).distinct())
    if not phase_ids:
        raise Refused("No run is selected: tick the runs to download first.")
    if len(phase_ids) > 1:
        names = ", ".join(
            Phase.objects.filter(pk__in=phase_ids).values_list("name", flat=True)
        )
        raise Refused(
            f"The selected runs belong to {len(phase_ids)} phases ({names}): a zip "
            "holds the runs of one phase. Filter by a phase first."
        )
    phase = Phase.objects.select_related("task").get(pk=phase_ids.pop())
    archive = exports.runs_zip(
        phase=phase, user=user, submission_ids=runs.values_list("pk", flat=True)
    )
    return archive, f"{task.slug}-{phase.slug}-runs.zip"
