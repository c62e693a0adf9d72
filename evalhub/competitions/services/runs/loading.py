"""A run with its phase, task and team, read in one precompiled query.

Every page of a run (its page, the polled status, its file, plots and per-item
outcomes) first loads the run with these three rows; compiling that query cost
more than running it (see ``evalhub.precompiled``): a tenth of a run page's CPU."""

from __future__ import annotations

from evalhub.competitions.models import Phase, SharedTask, Submission, Team
from evalhub.precompiled import Precompiled, fields, instance

_RUN = fields(Submission)
_PHASE = fields(Phase, "phase__")
_TASK = fields(SharedTask, "phase__task__")
_TEAM = fields(Team, "team__")
_ROWS = Precompiled(
    lambda pk: Submission.objects.filter(pk=pk).values_list(
        *_RUN, *_PHASE, *_TASK, *_TEAM
    ),
    pk=-2_000_000_004,
)


def run(pk: int) -> Submission | None:
    """The run ``pk`` with ``phase``, ``phase.task`` and ``team`` attached (None:
    no such run)."""
    if not 0 < pk < 2**63:  # a key the column cannot hold names no run
        return None
    rows = _ROWS.rows(pk=pk)
    if not rows:
        return None
    row = rows[0]
    ends = [len(_RUN)]
    for part in (_PHASE, _TASK, _TEAM):
        ends.append(ends[-1] + len(part))
    submission = instance(Submission, row[: ends[0]])
    phase = instance(Phase, row[ends[0] : ends[1]])
    phase.task = instance(SharedTask, row[ends[1] : ends[2]])
    submission.phase = phase
    submission.team = instance(Team, row[ends[2] : ends[3]])
    return submission


def state(submission: Submission) -> tuple:  # type: ignore[type-arg]
    """Every field of the run and of its phase, task and team as ``run`` loaded
    them: what a page kept for the run depends on of them (``boards.run_scores``)."""
    return tuple(
        tuple(getattr(obj, name) for name in names)
        for obj, names in (
            (submission, _RUN),
            (submission.phase, _PHASE_NAMES),
            (submission.phase.task, _TASK_NAMES),
            (submission.team, _TEAM_NAMES),
        )
    )


_PHASE_NAMES = fields(Phase)
_TASK_NAMES = fields(SharedTask)
_TEAM_NAMES = fields(Team)
