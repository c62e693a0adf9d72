"""Rescoring after replaced gold or a new scorer version, for organisers: which runs
were scored with other versions than the current ones, one click to rescore them all,
and each run's scores before and after side by side (the old ones are kept as
``ScoreSnapshot`` rows when a rescore overwrites them)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from evalhub.competitions.models import (
    Evaluation,
    Score,
    ScoreSnapshot,
    SharedTask,
    Submission,
    TestSet,
)
from evalhub.competitions.services.data import taskdata
from evalhub.competitions.services.runs import lifecycle, stale


@dataclass(frozen=True, slots=True)
class Cell:
    before: str
    after: str
    #: after - before, formatted with a sign; "" when either side is undefined
    change: str


@dataclass(frozen=True, slots=True)
class Row:
    submission: Submission
    #: "gold v0, scorer 1.2" of the kept scores ("" when nothing was kept)
    before_label: str
    #: "gold v1, scorer 1.2" of the current scores ("" when not scored here yet)
    after_label: str
    #: the current scores came from the current gold and scorer
    current: bool
    cells: tuple[Cell, ...]


@dataclass(frozen=True, slots=True)
class TestSetRescoring:
    test_set: TestSet
    current_label: str
    metric_labels: tuple[str, ...]
    rows: tuple[Row, ...]
    stale: int


def _label(gold_version: int, scorer_version: str) -> str:
    return f"gold v{gold_version}, scorer {scorer_version}"


def stale_runs(*, task: SharedTask) -> list[int]:
    """The runs the button rescores: ``stale.outdated_runs``, the one definition
    of outdated that the organiser's preview of new files follows too."""
    return stale.outdated_runs(task=task)


def rescore_stale(*, task: SharedTask) -> int:
    with transaction.atomic():
        return lifecycle.rescore(submission_ids=stale_runs(task=task))


def comparison(*, task: SharedTask) -> list[TestSetRescoring]:
    task_type = task.type
    version = task_type.version
    metrics = task_type.metrics
    result = []
    test_sets = list(
        TestSet.objects.filter(phase__task=task)
        .prefetch_related("files")
        .select_related("phase__task")
    )
    ready = {ts.pk for ts in taskdata.scorable(test_sets)}
    outdated = set(stale.outdated_runs(task=task))
    for test_set in test_sets:
        evaluations = {
            e.submission_id: e
            for e in Evaluation.objects.filter(test_set=test_set).only(
                "submission_id", "scorer_version", "gold_version"
            )
        }
        snapshots: dict[int, ScoreSnapshot] = {}
        for snap in ScoreSnapshot.objects.filter(test_set=test_set):
            snapshots.setdefault(snap.submission_id, snap)  # newest first
        scores: dict[int, dict[str, float | None]] = {}
        for sub_id, metric, value in Score.objects.filter(
            test_set=test_set
        ).values_list("submission_id", "metric", "value"):
            scores.setdefault(sub_id, {})[metric] = value
        runs = (
            Submission.objects.filter(pk__in=set(evaluations) | set(snapshots))
            .select_related("team")
            .order_by("team__name", "created_at")
        )
        rows = []
        outdated_here = 0
        for run in runs:
            evaluation = evaluations.get(run.pk)
            snap = snapshots.get(run.pk)
            # A run without scores on a test set that cannot score runs now (its
            # gold or an input deleted) has nothing to be rescored there.
            current = (
                stale.current(evaluation, test_set=test_set, scorer_version=version)
                if evaluation is not None
                else test_set.pk not in ready or run.pk not in outdated
            )
            outdated_here += not current
            after = scores.get(run.pk, {}) if evaluation else {}
            before = snap.metrics if snap else {}
            cells = []
            for m in metrics:
                b, a = before.get(m.key), after.get(m.key)
                change = ""
                if a is not None and b is not None:
                    delta = a - b
                    change = (f"{delta:+,.0f}" if m.count else f"{delta:+.4f}").replace(
                        "-", "−"
                    )
                cells.append(
                    Cell(
                        before=m.format(b) if snap else "",
                        after=m.format(a) if evaluation else "",
                        change=change,
                    )
                )
            rows.append(
                Row(
                    submission=run,
                    before_label=_label(snap.gold_version, snap.scorer_version)
                    if snap
                    else "",
                    after_label=_label(
                        evaluation.gold_version, evaluation.scorer_version
                    )
                    if evaluation
                    else "",
                    current=current,
                    cells=tuple(cells),
                )
            )
        result.append(
            TestSetRescoring(
                test_set=test_set,
                current_label=_label(test_set.gold_version, version),
                metric_labels=tuple(m.label for m in metrics),
                rows=tuple(rows),
                stale=outdated_here,
            )
        )
    return result
