"""How a leaderboard table is laid out for reading: which metric columns show by
default (the phase's columns, ``ranking.Ranking.columns``; the reader reveals the rest), each
column's name and explanation, and the ranked rows apart from the baselines.
Pure presentation of a board the caller may already show: nothing here reads
scores the board does not hold."""

from __future__ import annotations

from dataclasses import dataclass

from evalhub.competitions.services.boards import leaderboard
from tasks.base import TaskType


@dataclass(frozen=True, slots=True)
class Column:
    key: str
    label: str
    description: str
    primary: bool
    #: Shown only once the reader asks for every metric.
    extra: bool


@dataclass(frozen=True, slots=True)
class Layout:
    columns: tuple[Column, ...]
    extra_keys: frozenset[str]
    ranked: tuple[leaderboard.Row, ...]
    baselines: tuple[leaderboard.Row, ...]
    #: Number of columns of the whole table (rank, band, team, method, interval,
    #: metrics, submitted, compare).
    width: int

    @property
    def has_extra(self) -> bool:
        return bool(self.extra_keys)


def default_metrics(task_type: TaskType) -> tuple[str, ...]:
    """The metric keys shown by default (``TaskType.default_metrics``)."""
    return task_type.default_metrics()


def layout(*, task_type: TaskType, board: leaderboard.Board) -> Layout:
    shown = set(board.shown_keys or default_metrics(task_type))
    columns = []
    for key in board.metric_keys:
        metric = task_type.metric(key)
        columns.append(
            Column(
                key=key,
                label=metric.label,
                description=metric.description,
                primary=key == board.primary_metric,
                extra=key not in shown,
            )
        )
    return Layout(
        columns=tuple(columns),
        extra_keys=frozenset(c.key for c in columns if c.extra),
        ranked=tuple(r for r in board.rows if not r.is_baseline),
        baselines=tuple(r for r in board.rows if r.is_baseline),
        width=5
        + len(columns)
        + bool(board.rows and board.rows[0].band)
        + bool(board.signature),
    )
