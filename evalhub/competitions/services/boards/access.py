"""Who may see what. One place for the leak rules of DESIGN.md:
- gold files and per-item outcomes: organisers only, until the gold is released;
- scores on a private test set: organisers only, until the test set is revealed
  (the run's own team included);
- run files and failure messages: the run's team and the organisers;
- a hidden run (its team's choice): its team and the organisers only, everywhere
  (leaderboards, run pages, plots, comparisons, exports, the API);
- a run's score: the rule of ``services/boards/visibility.py`` (with the score gate, the
  Ladder), for this viewer (``can_see_run_scores``, ``visible_runs``)."""

from __future__ import annotations

from collections.abc import Iterable

from evalhub.competitions.models import SharedTask, Submission, TaskArtefact, TestSet
from evalhub.competitions.services.boards import visibility


def is_organiser(user: object, task: SharedTask) -> bool:
    return task.is_organiser(user)


def can_see_task(user: object, task: SharedTask) -> bool:
    return task.state != SharedTask.State.DRAFT or is_organiser(user, task)


def can_see_scores(user: object, test_set: TestSet) -> bool:
    return test_set.scores_public or is_organiser(user, test_set.phase.task)


def can_see_detail(user: object, task: SharedTask) -> bool:
    return task.gold_released or is_organiser(user, task)


def is_team_member(user: object, submission: Submission) -> bool:
    if not getattr(user, "is_authenticated", False):
        return False
    return submission.team.members.filter(pk=user.pk).exists()  # type: ignore[attr-defined]


def can_see_run_private(user: object, submission: Submission) -> bool:
    """The run file, failure messages and warnings."""
    return is_team_member(user, submission) or is_organiser(user, submission.phase.task)


def can_see_task_artefact(user: object, artefact: TaskArtefact) -> bool:
    """A task-level plot or analysis of a test set: its scores, organiser-only
    artefacts until gold release, and no plot still drawing a run hidden since
    (until the worker redraws it)."""
    test_set = artefact.test_set
    task = test_set.phase.task
    if not can_see_task(user, task) or not can_see_scores(user, test_set):
        return False
    if artefact.organiser_only and not can_see_detail(user, task):
        return False
    if artefact.runs and not can_see_hidden_runs(user, task):
        return not Submission.objects.filter(pk__in=artefact.runs, hidden=True).exists()
    return True


def can_see_run(user: object, submission: Submission) -> bool:
    """The run exists for this viewer: shown runs for everyone who sees the task,
    hidden runs for their team and the organisers only."""
    if not can_see_task(user, submission.phase.task):
        return False
    return not submission.hidden or can_see_run_private(user, submission)


def can_see_hidden_runs(user: object, task: SharedTask) -> bool:
    """Leaderboards, rankings and exports list every team's hidden runs (marked)
    for organisers; everyone else gets boards computed without them."""
    return is_organiser(user, task)


def can_manage_run(user: object, submission: Submission) -> bool:
    """Choose final runs and show or hide a run: the run's team (not for baselines,
    which the organisers own)."""
    return not submission.is_baseline and is_team_member(user, submission)


def can_see_run_scores(user: object, submission: Submission, test_set: TestSet) -> bool:
    """One run's scores and plots on a test set, for this viewer."""
    if not can_see_run(user, submission) or not can_see_scores(user, test_set):
        return False
    if is_organiser(user, test_set.phase.task):
        return True
    return not visibility.gated(visibility.released(test_set), submission.pk)


def visible_runs(
    *, user: object, test_set: TestSet, runs: Iterable[Submission]
) -> set[int]:
    """The runs among ``runs`` whose scores on ``test_set`` this viewer may see (the
    bulk form of ``can_see_run_scores``, for rankings over many runs)."""
    runs = list(runs)
    if not can_see_scores(user, test_set):
        return set()
    task = test_set.phase.task
    if is_organiser(user, task):
        return {r.pk for r in runs}
    gate = visibility.released(test_set)
    return {
        r.pk
        for r in runs
        if not visibility.gated(gate, r.pk) and (not r.hidden or can_see_run(user, r))
    }
