"""Who may see what. One place for the leak rules of DESIGN.md:
- gold files and per-item outcomes: organisers only, until the gold is released;
- scores on a private test set: organisers only, until the test set is revealed
  (the run's own team included);
- run files and failure messages: the run's team and the organisers."""

from __future__ import annotations

from evalhub.competitions.models import SharedTask, Submission, TestSet


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


def can_see_run_scores(user: object, submission: Submission, test_set: TestSet) -> bool:
    """One run's scores and plots on a test set: the test set's visibility, and in a
    Ladder phase only what the Ladder released (evalhub.rankings)."""
    if not can_see_scores(user, test_set):
        return False
    from evalhub.rankings.services.statistics import ladder_hides

    return not ladder_hides(submission=submission, test_set=test_set, user=user)
