"""What an embed and a badge show of a board: the board of a test set (in a
track, or of every track) or the phase's overall ranking, exactly as an
anonymous visitor sees it, whoever asks. The rows come from the core's public
board (``leaderboard.board`` without hidden runs) and the overall ranking for
``visibility.PUBLIC``: the one visibility rule (``visibility.visible``) decides
every score; a test set whose scores are not public shows none."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from urllib.parse import quote

from django.urls import reverse
from django.utils import timezone

from evalhub.competitions.models import Phase, TestSet, Track
from evalhub.competitions.services.boards import (
    access,
    leaderboard,
    overall,
    visibility,
)
from evalhub.competitions.services.boards import ranking as ranking_rule

#: Rows an embed lists; the others are on the full leaderboard.
MAX_ROWS = 30


@dataclass(frozen=True, slots=True)
class Row:
    rank: int
    team: str
    method: str
    values: tuple[str, ...]  # formatted, in ``Shown.columns`` order
    baseline: bool = False
    track: str = ""


@dataclass(frozen=True, slots=True)
class Leader:
    team: str
    method: str
    score: str


@dataclass(frozen=True, slots=True)
class Shown:
    task: str
    phase: str
    board: str  # the test set's name, or "Overall ranking"
    track: str  # the track's name ("" for every track)
    metric: str  # what ranks the board
    columns: tuple[str, ...]
    rows: tuple[Row, ...]
    more: int  # ranked rows not listed
    note: str  # why there is no score ("" when there are)
    leader: Leader | None
    url: str  # the full board on the site (a path)
    as_of: datetime

    @property
    def title(self) -> str:
        parts = [self.task, self.phase, self.board]
        return " · ".join(parts + ([f"{self.track} track"] if self.track else []))


def _track_query(track: Track | None) -> str:
    return "" if track is None else f"?track={quote(track.slug)}"


def of_test_set(*, phase: Phase, test_set: TestSet, track: Track | None) -> Shown:
    """The public board of ``test_set`` in ``track`` (None: every track)."""
    task = phase.task
    url = reverse("competitions:leaderboard-detail", args=[task.slug, phase.slug])
    base = {
        "task": task.title,
        "phase": phase.name,
        "board": test_set.name,
        "track": "" if track is None else track.name,
        "url": url + _track_query(track),
        "as_of": timezone.now(),
    }
    primary = ranking_rule.metric(phase)
    if not access.can_see_scores(visibility.PUBLIC, test_set):
        return Shown(
            **base,
            metric=primary.label,
            columns=(),
            rows=(),
            more=0,
            note="Scores on this test set are private until the organisers "
            "reveal them.",
            leader=None,
        )
    board = leaderboard.board(test_set=test_set, include_hidden=False, track=track)
    metric = task.type.metric(board.primary_metric)
    rows = tuple(
        Row(
            rank=r.rank,
            team=r.team,
            method=r.method_name,
            values=tuple(text for _, _, text in r.metrics),
            baseline=r.is_baseline,
            track="" if track is not None else r.track_name,
        )
        for r in board.rows
    )
    first = next((r for r in board.rows if not r.is_baseline), None)
    leader = None
    if first is not None:
        score = next(t for k, _, t in first.metrics if k == board.primary_metric)
        leader = Leader(first.team, first.method_name, f"{metric.label} {score}")
    return Shown(
        **base,
        metric=metric.label,
        columns=board.metric_labels,
        rows=rows[:MAX_ROWS],
        more=max(0, len(rows) - MAX_ROWS),
        note="" if rows else "No scored run yet.",
        leader=leader,
    )


def of_overall(*, phase: Phase, track: Track | None) -> Shown:
    """The phase's public overall ranking in ``track`` (None: every track)."""
    task = phase.task
    ranking = overall.overall(phase=phase, user=visibility.PUBLIC, track=track)
    score = ranking.score_label or f"Mean {ranking.metric_label}"
    url = reverse("competitions:ranking-detail", args=[task.slug, phase.slug])
    rows = tuple(
        Row(
            rank=r.rank,
            team=r.team,
            method=r.method_name,
            values=(f"{r.mean:.4f}", *r.per_test_set),
            track="" if track is not None else r.track,
        )
        for r in ranking.rows
    )
    if ranking.test_sets:
        note = "" if rows else "No run is ranked yet."
    else:
        note = "The test sets this ranking averages are private until revealed."
    first = ranking.rows[0] if ranking.rows else None
    return Shown(
        task=task.title,
        phase=phase.name,
        board="Overall ranking",
        track="" if track is None else track.name,
        metric=score[:1].lower() + score[1:],
        columns=(
            score,
            *(ts.name for ts in ranking.test_sets),
        ),
        rows=rows[:MAX_ROWS],
        more=max(0, len(rows) - MAX_ROWS),
        note=note,
        leader=None
        if first is None
        else Leader(
            first.team,
            first.method_name,
            f"{score[:1].lower() + score[1:]} {first.mean:.4f}",
        ),
        url=url + _track_query(track),
        as_of=timezone.now(),
    )
