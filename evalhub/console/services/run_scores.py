"""Every score of the runs on the console's *Runs* page, as its organisers see
them: the primary one in the list, every metric on demand (a ``<details>`` per
test set) and in the page's CSV export, one row per run and test set. Which
scores the viewer may see is the one visibility rule's answer
(``boards/visibility.py``: organisers see every score at once); a fixed number of
queries whatever the number of runs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evalhub.competitions.models import Score, SharedTask, Submission, TestSet
from evalhub.competitions.services.boards import tables, visibility


@dataclass(frozen=True, slots=True)
class ScoreCell:
    test_set: TestSet
    #: the formatted primary score; "" when the run has none on this test set
    value: str
    #: (metric label, formatted score) for every metric of the task type, the
    #: primary first; "" where the run has no such score
    every: tuple[tuple[str, str], ...] = ()

    @property
    def has_more(self) -> bool:
        return any(value for _, value in self.every[1:])


def metrics(task: SharedTask) -> tuple:
    """The task type's metrics, the primary first, then in their declared order."""
    kind = task.type
    primary = kind.metric(kind.primary_metric)
    return (primary, *(m for m in kind.metrics if m.key != primary.key))


def cells(
    *, task: SharedTask, viewer: object, runs: Sequence[Submission]
) -> dict[int, tuple[ScoreCell, ...]]:
    """For each run (by id), one cell per test set of its phase, in their order."""
    # In each phase, in TestSet's own order (its Meta's ``ordering``).
    test_sets = list(
        TestSet.objects.filter(phase_id__in={r.phase_id for r in runs}).select_related(
            "phase__task"
        )
    )
    shown_metrics = metrics(task)
    values = {
        (s.submission_id, s.test_set_id, s.metric): s.value
        for s in Score.objects.filter(
            submission_id__in=[r.pk for r in runs],
            metric__in=[m.key for m in shown_metrics],
        )
    }
    # The one rule, in bulk per test set: which of these runs' scores the viewer
    # may see (organisers: all of them).
    shown = {
        ts.pk: visibility.visible(
            viewer=viewer,
            test_set=ts,
            runs=[r for r in runs if r.phase_id == ts.phase_id],
        )
        for ts in test_sets
    }

    def cell(run: Submission, ts: TestSet) -> ScoreCell:
        every = tuple(
            (
                m.label,
                m.format(values[(run.pk, ts.pk, m.key)])
                if (run.pk, ts.pk, m.key) in values and run.pk in shown[ts.pk]
                else "",
            )
            for m in shown_metrics
        )
        return ScoreCell(test_set=ts, value=every[0][1], every=every)

    return {
        r.pk: tuple(cell(r, ts) for ts in test_sets if ts.phase_id == r.phase_id)
        for r in runs
    }


def csv_text(*, task: SharedTask, viewer: object, runs: Sequence[Submission]) -> str:
    """The runs as CSV: one row per run and test set of its phase, with every
    metric's score (empty where there is none or the viewer may not see it);
    user text as plain text (``tables.csv_cell``)."""
    by_run = cells(task=task, viewer=viewer, runs=runs)
    header = [
        "run",
        "team",
        "phase",
        "track",
        "method",
        "status",
        "submitted (UTC)",
        "test set",
        *(m.label for m in metrics(task)),
    ]
    rows = (
        [
            run.pk,
            run.team.name if run.team_id else "",
            run.phase.name,
            run.track.name if run.track_id else "",
            run.method_name,
            run.get_status_display(),
            run.created_at.isoformat(),
            cell.test_set.name,
            *(value for _, value in cell.every),
        ]
        for run in runs
        for cell in by_run[run.pk]
    )
    return tables.csv_text(header, rows)
