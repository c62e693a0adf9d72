"""The home page's task cards and a phase's public leader (also the link preview
of task and leaderboard pages).

Everything here is what an anonymous visitor may see, whoever asks: the leader
comes from the *public* board of the phase's first test set whose scores are
public (``leaderboard.leading_row``, from the board an anonymous viewer gets: no
hidden run, no private score, only what a score gate such as the Ladder
released), and the
counts leave hidden runs and baselines out. Boards are read from the board cache
(one cache read per task); the rest is five queries for any number of tasks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AnonymousUser
from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from evalhub.competitions.models import (
    Phase,
    Registration,
    SharedTask,
    Submission,
    TestSet,
)
from evalhub.competitions.services.boards import access, leaderboard


@dataclass(frozen=True, slots=True)
class Leader:
    team: str
    method: str
    metric: str  # the primary metric's label
    description: str  # the primary metric's description
    score: str  # formatted as on the board
    test_set: str
    submission_id: int


@dataclass(frozen=True, slots=True)
class Card:
    task: SharedTask
    type_name: str
    phase: Phase | None
    #: "open", "upcoming", "closed" or "none" (no phase yet).
    state: str
    #: The next date that matters: the phase's close when open, its opening when
    #: upcoming, its close when closed.
    deadline: datetime | None
    teams: int
    runs: int
    leader: Leader | None
    #: The task's evaluation after the campaign, while it is open (None: none).
    after_campaign: Phase | None = None


_ORDER = {"open": 0, "upcoming": 1, "closed": 2, "none": 3}


def phase_leader(
    phase: Phase, test_sets: Sequence[TestSet] | None = None
) -> Leader | None:
    """The best non-baseline row of the public board of ``phase``'s first test set
    whose scores the public may see, or None (no such test set, no scored run).
    ``test_sets``: the phase's, when the caller has them (no query then; the board
    comes from the board cache)."""
    public = AnonymousUser()
    for test_set in phase.test_sets.all() if test_sets is None else test_sets:
        test_set.phase = phase
        if not access.can_see_scores(public, test_set):
            continue
        # The anonymous viewer's board (``board_for``): no hidden run.
        row, primary = leaderboard.leading_row(test_set=test_set)
        if row is None:
            return None
        metric = phase.task.type.metric(primary)
        text = next(t for k, _, t in row.metrics if k == primary)
        return Leader(
            team=row.team,
            method=row.method_name,
            metric=metric.label,
            description=metric.description,
            score=text,
            test_set=test_set.name,
            submission_id=row.submission_id,
        )
    return None


def _current_phase(phases: list[Phase], now: datetime) -> tuple[Phase | None, str]:
    """The open phase (the earliest closing), else the next upcoming one, else the
    last closed one: of the campaign's official phases (an evaluation after the
    campaign never gives the card its leader)."""
    phases = [p for p in phases if not p.after_campaign]
    open_ = [p for p in phases if p.opens_at <= now < p.closes_at]
    if open_:
        return min(open_, key=lambda p: p.closes_at), "open"
    upcoming = [p for p in phases if now < p.opens_at]
    if upcoming:
        return min(upcoming, key=lambda p: p.opens_at), "upcoming"
    if phases:
        return max(phases, key=lambda p: p.closes_at), "closed"
    return None, "none"


def task_cards(*, tasks: QuerySet[SharedTask]) -> list[Card]:
    """One card per task, open tasks first (then upcoming, closed), each group in
    the order of its next deadline."""
    now = timezone.now()
    tasks_list = list(tasks.prefetch_related("phases__test_sets"))
    ids = [t.pk for t in tasks_list]
    teams = dict(
        SharedTask.objects.filter(pk__in=ids)
        .annotate(
            n=Count(
                "registrations",
                filter=Q(registrations__status=Registration.Status.APPROVED),
                distinct=True,
            )
        )
        .values_list("pk", "n")
    )
    runs = dict(
        Submission.objects.filter(
            phase__task__in=ids,
            phase__after_campaign=False,
            status=Submission.Status.SCORED,
            hidden=False,
            is_baseline=False,
        )
        .values_list("phase__task")
        .annotate(n=Count("pk"))
        .values_list("phase__task", "n")
    )
    cards = []
    for task in tasks_list:
        phase, state = _current_phase(list(task.phases.all()), now)
        if phase is not None:
            phase.task = task
        deadline = None
        if phase is not None:
            deadline = phase.opens_at if state == "upcoming" else phase.closes_at
        cards.append(
            Card(
                task=task,
                type_name=task.type.name,
                phase=phase,
                state=state,
                deadline=deadline,
                teams=teams.get(task.pk, 0),
                runs=runs.get(task.pk, 0),
                leader=phase_leader(phase) if phase is not None else None,
                after_campaign=next(
                    (
                        p
                        for p in task.phases.all()
                        if p.after_campaign and p.opens_at <= now < p.closes_at
                    ),
                    None,
                ),
            )
        )

    def key(card: Card) -> tuple[int, float, str]:
        at = card.deadline.timestamp() if card.deadline else 0.0
        return (
            _ORDER[card.state],
            -at if card.state == "closed" else at,
            card.task.title,
        )

    return sorted(cards, key=key)
