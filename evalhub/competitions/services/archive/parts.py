"""What an archive holds of a task, part by part: the core's rows (``CORE``) and
what each feature app registers from its ``AppConfig.ready()`` (the fact sheets,
the ranking settings and statistics, the announcements, the annotators'
judgements). The core never imports a feature app: an app that keeps rows about a
task registers a :class:`Part` naming its models and how to find a task's rows.

The archive's rows are model rows serialised as Django does (``model``, ``pk``,
``fields``); user accounts are never a part: the writer reduces every account the
rows name to its user name (``people``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.db.models import Model, Q

from evalhub.competitions.models import (
    Artefact,
    BoardVersion,
    Evaluation,
    Phase,
    Registration,
    Score,
    ScoreSnapshot,
    SharedTask,
    Submission,
    TaskArtefact,
    Team,
    TestSet,
    TestSetFile,
    Track,
)


@dataclass(frozen=True, slots=True)
class Part:
    """``models``: the models whose rows the part writes and, on import, accepts
    (each row's references are checked against the archive); ``rows(task)``: the
    task's rows of those models, each row after the rows it refers to."""

    name: str
    models: tuple[type[Model], ...]
    rows: Callable[[SharedTask], Iterable[Model]]


def _core_rows(task: SharedTask) -> Iterable[Model]:
    runs = Submission.objects.filter(phase__task=task).order_by("pk")
    yield from (
        Team.objects.filter(
            Q(registrations__task=task) | Q(submissions__phase__task=task)
        )
        .distinct()
        .order_by("pk")
    )
    yield task
    yield from Registration.objects.filter(task=task).order_by("pk")
    yield from Phase.objects.filter(task=task).order_by("pk")
    yield from Track.objects.filter(phase__task=task).order_by("pk")
    test_sets = TestSet.objects.filter(phase__task=task).order_by("pk")
    yield from test_sets
    yield from BoardVersion.objects.filter(test_set__in=test_sets).order_by("pk")
    yield from TestSetFile.objects.filter(test_set__in=test_sets).order_by("pk")
    yield from runs
    for model in (Evaluation, Score, ScoreSnapshot):
        yield from model.objects.filter(submission__in=runs).order_by("pk")
    yield from Artefact.objects.filter(evaluation__submission__in=runs).order_by("pk")
    yield from TaskArtefact.objects.filter(test_set__in=test_sets).order_by("pk")


#: The core's rows: teams, the task, registrations, phases, tracks, test sets with
#: their inputs and gold, every run with its file, scores, per-item results, plots
#: and the test sets' analyses.
CORE = Part(
    name="core",
    models=(
        Team,
        SharedTask,
        Registration,
        Phase,
        Track,
        TestSet,
        BoardVersion,
        TestSetFile,
        Submission,
        Evaluation,
        Score,
        ScoreSnapshot,
        Artefact,
        TaskArtefact,
    ),  # fmt: skip
    rows=_core_rows,
)

#: Rows of these models are shared with other tasks: an import reuses the row of
#: the same id and name, and never changes it.
SHARED = frozenset({Team})

_parts: dict[str, Part] = {}


def register(part: Part) -> None:
    """Add (or replace) a feature app's part; call it from ``AppConfig.ready()``."""
    if part.name == CORE.name:
        raise ValueError("the core's part is not registered")
    _parts[part.name] = part


def parts() -> list[Part]:
    """The core's part first, then the feature apps' in the order registered."""
    return [CORE, *_parts.values()]
