"""Compare 2 to 5 runs of a phase: their metrics per test set side by side (the best
value of each quality metric marked by ``Metric.best``, the others' difference to it;
counts such as nSys or FP are never "best") and one overlaid figure per kind
(``compare_figures``) of the runs whose scores the viewer may see. The leak
rules are those of the run pages (``services/boards/access.py``): a run the viewer may not
see makes the page "not found", and a test set's scores appear only where
``visibility.visible`` lets the viewer see them (as on the run page)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

from evalhub.competitions.models import Evaluation, Phase, Submission, TestSet
from evalhub.competitions.services.boards import (
    access,
    compare_figures,
    tables,
    visibility,
)
from tasks.base import Metric
from tasks.common.plotting import POINT_COLUMNS

MIN_RUNS = 2
MAX_RUNS = 5


class NotFound(Exception):
    """A requested run does not exist in the phase or is not visible to the viewer."""


@dataclass(frozen=True, slots=True)
class Cell:
    text: str
    best: bool = False
    #: Difference to the column's best value, e.g. "−0.0123" ("" for the best).
    delta: str = ""


@dataclass(frozen=True, slots=True)
class CompareRow:
    run: Submission
    visible: bool  # this run's scores on the test set are shown to the viewer
    cells: tuple[Cell, ...]


@dataclass(frozen=True, slots=True)
class CompareTable:
    test_set: TestSet
    metrics: tuple[Metric, ...]
    #: Per metric: the shown values are not all equal (the column is highlighted).
    differs: tuple[bool, ...]
    rows: tuple[CompareRow, ...]
    #: The overlaid figures of the visible runs (None: no run visible).
    figures: compare_figures.Figures | None

    @property
    def metrics_with_differs(self) -> tuple[tuple[Metric, bool], ...]:
        return tuple(zip(self.metrics, self.differs, strict=True))

    @property
    def differing_labels(self) -> str:
        """The labels of the columns whose values differ, said once for the table."""
        return ", ".join(m.label for m, d in self.metrics_with_differs if d)

    @property
    def any_visible(self) -> bool:
        return any(r.visible for r in self.rows)


def _parse(run_ids: Sequence[str]) -> list[int] | str:
    ids: list[int] = []
    for raw in run_ids:
        for part in str(raw).split(","):
            part = part.strip()
            if not part:
                continue
            if not part.isdigit():
                return f"“{part[:20]}” is not a run number."
            if int(part) not in ids:
                ids.append(int(part))
    if not MIN_RUNS <= len(ids) <= MAX_RUNS:
        return (
            f"Choose between {MIN_RUNS} and {MAX_RUNS} runs to compare "
            f"({len(ids)} chosen)."
        )
    return ids


def _visible(
    test_set: TestSet,
    runs: list[Submission],
    user: object,
    evaluations: dict[tuple[int, int], Evaluation],
) -> dict[int, bool]:
    """Run -> its scores on the test set are shown to the viewer (the table's
    values and the figures alike)."""
    seen = visibility.visible(viewer=user, test_set=test_set, runs=runs)
    return {
        run.pk: run.status == Submission.Status.SCORED
        and (run.pk, test_set.pk) in evaluations
        and run.pk in seen
        for run in runs
    }


def _delta(metric: Metric, value: float, best: float) -> str:
    diff = value - best
    if metric.count:
        return f"{diff:+.0f}".replace("-", "−")
    return f"{diff:+.4f}".replace("-", "−")


def _table(
    test_set: TestSet,
    runs: list[Submission],
    user: object,
    evaluations: dict[tuple[int, int], Evaluation],
) -> CompareTable:
    metrics = tuple(test_set.phase.task.type.metrics)
    values: dict[int, dict[str, float | None]] = {}
    visible = _visible(test_set, runs, user, evaluations)
    for run in runs:
        values[run.pk] = (
            {
                s.metric: s.value
                for s in run.scores.all()
                if s.test_set_id == test_set.pk
            }
            if visible[run.pk]
            else {}
        )
    best: dict[str, float | None] = {}
    differs: list[bool] = []
    for m in metrics:
        shown = [values[r.pk].get(m.key) for r in runs if visible[r.pk]]
        best[m.key] = m.best(shown)
        differs.append(len(set(shown)) > 1)
    rows = []
    for run in runs:
        cells = []
        for m, col_differs in zip(metrics, differs, strict=True):
            value = values[run.pk].get(m.key)
            if not visible[run.pk]:
                cells.append(Cell(text=""))
                continue
            top = best[m.key]
            is_best = value is not None and value == top and col_differs
            delta = (
                _delta(m, value, top)
                if top is not None and col_differs and value is not None and not is_best
                else ""
            )
            cells.append(Cell(text=m.format(value), best=is_best, delta=delta))
        rows.append(CompareRow(run=run, visible=visible[run.pk], cells=tuple(cells)))
    drawn = [r.pk for r in runs if visible[r.pk]]
    figures = (
        compare_figures.figures(test_set=test_set, run_ids=drawn) if drawn else None
    )
    return CompareTable(
        test_set=test_set,
        metrics=metrics,
        differs=tuple(differs),
        rows=tuple(rows),
        figures=figures,
    )


def compare_page(
    *, phase: Phase, run_ids: Sequence[str], user: object
) -> dict[str, object]:
    """The page's context; ``error`` (with no tables) when the choice is not 2 to 5
    run numbers. Raises NotFound for a run outside the phase or hidden from the
    viewer (the run page's rules)."""
    task = phase.task
    context: dict[str, object] = {
        "task": task,
        "phase": phase,
        "tables": (),
        "runs": (),
        "error": "",
        "runs_query": "",
        "min_runs": MIN_RUNS,
        "max_runs": MAX_RUNS,
    }
    ids = _parse(run_ids)
    if isinstance(ids, str):
        context["error"] = ids
        return context
    runs, evaluations = _runs(phase, ids, user)
    context["runs"] = tuple(runs)
    context["runs_query"] = urlencode([("runs", pk) for pk in ids])
    context["tables"] = tuple(
        _table(ts, runs, user, evaluations) for ts in phase.test_sets.all()
    )
    return context


def _runs(
    phase: Phase, ids: list[int], user: object
) -> tuple[list[Submission], dict[tuple[int, int], Evaluation]]:
    """The runs in the order asked and their evaluations; NotFound for a run outside
    the phase or hidden from the viewer."""
    found = (
        Submission.objects.filter(phase=phase, pk__in=ids)
        .select_related("team", "phase__task")
        .prefetch_related("scores")
        .in_bulk()
    )
    runs = [found[pk] for pk in ids if pk in found]
    if len(runs) != len(ids) or not all(access.can_see_run(user, r) for r in runs):
        raise NotFound
    evaluations = {
        (ev.submission_id, ev.test_set_id): ev
        for ev in Evaluation.objects.filter(submission__in=runs).only(
            "pk", "submission_id", "test_set_id"
        )
    }
    return runs, evaluations


def figure(
    *,
    phase: Phase,
    run_ids: Sequence[str],
    user: object,
    test_set_id: int,
    key: str,
    form: str,
) -> tuple[bytes, str]:
    """One overlaid figure of the compare page, drawn over the runs whose scores on
    the test set the viewer may see: its SVG (``form`` "svg"), phone SVG
    ("narrow.svg") or points ("csv"), with its content type. NotFound if it is not
    drawn (yet) or the choice is not one the page accepts."""
    ids = _parse(run_ids)
    test_set = phase.test_sets.select_related("phase__task").filter(pk=test_set_id)
    if isinstance(ids, str) or not test_set:
        raise NotFound
    runs, evaluations = _runs(phase, ids, user)
    visible = _visible(test_set[0], runs, user, evaluations)
    shown = [r.pk for r in runs if visible[r.pk]]
    drawn = (
        compare_figures.figure(test_set=test_set[0], run_ids=shown, key=key)
        if shown
        else None
    )
    if drawn is None:
        raise NotFound
    if form == "csv":
        body = tables.csv_text(POINT_COLUMNS, drawn["points"])
        return body.encode(), "text/csv; charset=utf-8"
    svg = drawn["svg_narrow"] if form == "narrow.svg" else b""
    return svg or drawn["svg"], "image/svg+xml"
