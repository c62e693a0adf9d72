"""What ranks a phase: the metric its boards, statistics, Ladder, overall ranking,
figures, exports and package rank by, the board's columns and their order, and how
the overall ranking combines the counted test sets. :func:`of` is the one answer
every consumer asks (``tests/competitions/test_one_ranking_metric.py`` fails on a
module that reads the task type's ``primary_metric`` to rank instead).

The task type's choice is the default: its ``primary_metric``, its
``default_metrics`` as columns, the mean over test sets. The organisers' choice is
a section of the phase's settings owned by the rankings app
(``services/phase_settings``, section ``ranking``), which registers where it is
read (:func:`register`) from its ``AppConfig.ready()``; the core never imports it.
A stored choice the task type no longer allows (a metric no longer rankable, a
column no longer computed) falls back to the default, field by field."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from evalhub.competitions.models import Phase
from tasks.base import Metric, TaskType

#: The overall ranking's methods (``docs/rankings.md``, "Overall ranking").
MEAN = "mean"
AVERAGE_RANK = "average_rank"
OVERALL_METHODS: dict[str, str] = {
    MEAN: "Mean of the ranking metric over the counted test sets",
    AVERAGE_RANK: "Average rank over the counted test sets",
}


@dataclass(frozen=True, slots=True)
class Ranking:
    #: The key of the metric that ranks (one of ``TaskType.rankable_metrics``).
    metric: str
    #: The metric keys a board shows by default, in order (the ranking metric
    #: among them); the reader reveals the others, after them.
    columns: tuple[str, ...]
    #: How the overall ranking combines the counted test sets (``OVERALL_METHODS``).
    overall: str = MEAN


#: Reads a phase's stored choice: a mapping with any of ``metric`` (a key, "" for
#: the task type's), ``columns`` (keys, empty for the task type's) and ``overall``;
#: None when the phase has none.
Choice = Callable[[Phase], Mapping[str, object] | None]
_choices: list[Choice] = []


def register(choice: Choice | None) -> None:
    """Install (or, with ``None``, remove) where the phases' choices are read."""
    _choices[:] = [] if choice is None else [choice]


def default(task_type: TaskType) -> Ranking:
    """The task type's ranking."""
    return Ranking(metric=task_type.primary_metric, columns=task_type.default_metrics())


def resolve(task_type: TaskType, chosen: Mapping[str, object] | None) -> Ranking:
    """``chosen`` where the task type allows it, else its default, field by field."""
    base = default(task_type)
    if not chosen:
        return base
    metric = chosen.get("metric")
    if metric not in task_type.rankable_metrics():
        metric = base.metric
    known = {m.key for m in task_type.metrics}
    raw = chosen.get("columns")
    picked = [c for c in raw if c in known] if isinstance(raw, (list, tuple)) else []
    columns = tuple(dict.fromkeys(picked)) or base.columns
    if metric not in columns:
        columns = (str(metric), *columns)
    overall = chosen.get("overall")
    return Ranking(
        metric=str(metric),
        columns=columns,
        overall=overall if overall in OVERALL_METHODS else MEAN,  # type: ignore[arg-type]
    )


#: Where ``of`` keeps its answer on a phase object: a page asks it several times
#: (the board, its columns, the statistics, the overall ranking) and a query each
#: time would grow every page by as many; ``forget`` after storing a new choice.
_KEPT = "_evalhub_ranking"


def of(phase: Phase) -> Ranking:
    """The phase's ranking: the one answer (see the module docstring)."""
    kept = phase.__dict__.get(_KEPT)
    if kept is None:
        chosen = _choices[0](phase) if _choices else None
        kept = phase.__dict__[_KEPT] = resolve(phase.task.type, chosen)
    return kept


def forget(phase: Phase) -> None:
    """Drop the answer ``of`` kept on this phase object (its choice was stored)."""
    phase.__dict__.pop(_KEPT, None)


def metric(phase: Phase) -> Metric:
    """The metric that ranks the phase (its label, direction, format)."""
    return phase.task.type.metric(of(phase).metric)


def ordered_metrics(phase: Phase, ranking: Ranking | None = None) -> tuple[str, ...]:
    """Every metric key of the task type: with the organisers' columns, those
    first in their order, then the others in the task type's order; with the task
    type's, its own metric order (the board shows the default columns in place)."""
    chosen = of(phase) if ranking is None else ranking
    task_type = phase.task.type
    keys = tuple(m.key for m in task_type.metrics)
    if chosen.columns == task_type.default_metrics():
        return keys
    return (*chosen.columns, *(k for k in keys if k not in chosen.columns))


def ranked_by(phase: Phase, ranking: Ranking | None = None) -> str:
    """The sentence each board and export states: which metric ranks it."""
    chosen = of(phase) if ranking is None else ranking
    task_type = phase.task.type
    found = task_type.metric(chosen.metric)
    way = "higher is better" if found.higher_is_better else "lower is better"
    note = (
        ""
        if chosen.metric == task_type.primary_metric
        else ", chosen by the organisers"
    )
    return f"Ranked by {found.label} ({found.key}; {way}{note})."
