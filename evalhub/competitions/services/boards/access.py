"""Who may see what. One place for the leak rules of DESIGN.md:
- gold files and per-item outcomes: organisers only, until the gold is released;
- scores on a private test set: organisers only, until the test set is revealed
  (the run's own team included);
- run files and failure messages: the run's team and the organisers;
- a hidden run (its team's choice): its team and the organisers only, everywhere
  (leaderboards, run pages, plots, comparisons, exports, the API);
- a run's score: ``visibility.visible`` (with the score gate, the Ladder); one
  run's is ``can_see_run_scores``, a call of it."""

from __future__ import annotations

from collections.abc import Sequence

from evalhub.competitions.models import (
    SharedTask,
    Submission,
    TaskArtefact,
    TestSet,
    Track,
    member_team_ids,
)
from evalhub.competitions.services import roles
from evalhub.competitions.services.boards import visibility


def can_see_task(user: object, task: SharedTask) -> bool:
    return task.state != SharedTask.State.DRAFT or roles.is_organiser(user, task)


def can_see_scores(user: object, test_set: TestSet) -> bool:
    return test_set.scores_public or roles.is_organiser(user, test_set.phase.task)


def can_see_detail(user: object, task: SharedTask) -> bool:
    return task.gold_released or roles.is_organiser(user, task)


def is_team_member(user: object, submission: Submission) -> bool:
    if not getattr(user, "is_authenticated", False):
        return False
    return submission.team_id in member_team_ids(user)


def can_see_run_private(user: object, submission: Submission) -> bool:
    """The run file, failure messages and warnings."""
    return is_team_member(user, submission) or roles.is_organiser(
        user, submission.phase.task
    )


def can_see_task_artefact(user: object, artefact: TaskArtefact) -> bool:
    """A task-level figure or analysis of a test set (its page, image, data CSV,
    exports and the package): its scores, organiser-only artefacts until gold
    release, and only while every run it was drawn from is on the public board of
    the test set now (``artefact_current``)."""
    test_set = artefact.test_set
    task = test_set.phase.task
    if not can_see_task(user, task) or not can_see_scores(user, test_set):
        return False
    if artefact.organiser_only and not can_see_detail(user, task):
        return False
    return artefact_current(artefact)


def artefact_current(artefact: TaskArtefact) -> bool:
    """Every run ``artefact`` draws is on the public board of its test set and
    track now (it is drawn from that board's runs: ``analyses``; track None: the
    board of every track). A board that changed since (a
    Ladder decision, a hidden run, replaced gold, a rescore) makes it stale: served
    to nobody until the worker redraws it. Only answers: the page that finds it
    stale asks for the redraw (``board_pages``, ``exports``). Organisers see the
    same public figures."""
    from evalhub.competitions.services.boards import leaderboard

    drawn = {int(pk) for pk in artefact.runs}
    if not drawn:
        return True
    board = leaderboard.board(test_set=artefact.test_set, track=artefact.track)
    return drawn <= {row.submission_id for row in board.rows}


def track_figures_missing(
    test_set: TestSet,
    track: Track | None,
    rows: Sequence[object],
    artefacts: Sequence[TaskArtefact],
) -> bool:
    """A track's board with runs (``rows``) but no figures of its own
    (``artefacts``), while the board of every track has some: figures drawn
    before they were drawn per track. Only answers: the board page asks the
    worker to draw them."""
    if track is None or artefacts or not rows:
        return False
    return test_set.task_artefacts.filter(track__isnull=True).exists()


def can_see_run(user: object, submission: Submission) -> bool:
    """The run exists for this viewer: shown runs for everyone who sees the task,
    hidden runs for their team and the organisers only."""
    if not can_see_task(user, submission.phase.task):
        return False
    return not submission.hidden or can_see_run_private(user, submission)


def can_see_hidden_runs(user: object, task: SharedTask) -> bool:
    """Leaderboards, rankings and exports list every team's hidden runs (marked)
    for organisers; everyone else gets boards computed without them."""
    return roles.is_organiser(user, task)


def can_manage_run(user: object, submission: Submission) -> bool:
    """Choose final runs and show or hide a run: the run's team (not for baselines,
    which the organisers own)."""
    return not submission.is_baseline and is_team_member(user, submission)


def can_see_run_scores(user: object, submission: Submission, test_set: TestSet) -> bool:
    """One run's scores and plots on a test set, for this viewer."""
    return submission.pk in visibility.visible(
        viewer=user, test_set=test_set, runs=[submission]
    )
