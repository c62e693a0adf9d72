"""Shared tasks, phases, test sets, teams, submissions and their scores.

One module per concept; every model (and the upload paths and choices the migrations
name) is importable from here, so ``from evalhub.competitions.models import X`` holds.
The ``Submission`` row is the truth about a run: workers claim it atomically, the
sweeper finishes stuck ones, and pages read the row, never Celery's result store.
"""

from __future__ import annotations

from evalhub.competitions.models.artefacts import (
    Artefact,
    TaskArtefact,
    _plot_path,
    _task_artefact_path,
)
from evalhub.competitions.models.creators import CreatorChange
from evalhub.competitions.models.phases import (
    BoardVersion,
    Phase,
    TestSet,
    TestSetFile,
    _data_path,
)
from evalhub.competitions.models.refreshes import Refresh
from evalhub.competitions.models.scores import Evaluation, Score, ScoreSnapshot
from evalhub.competitions.models.submissions import Submission, TrackFixed, _run_path
from evalhub.competitions.models.tasks import (
    SharedTask,
    _task_type_choices,
    limit_organising,
    organised_task_ids,
)
from evalhub.competitions.models.teams import Registration, Team, member_team_ids
from evalhub.competitions.models.tracks import Track

__all__ = [
    "Artefact",
    "BoardVersion",
    "CreatorChange",
    "Evaluation",
    "Phase",
    "Refresh",
    "Registration",
    "Score",
    "ScoreSnapshot",
    "SharedTask",
    "Submission",
    "TaskArtefact",
    "Team",
    "TestSet",
    "TestSetFile",
    "Track",
    "TrackFixed",
    "limit_organising",
    "member_team_ids",
    "organised_task_ids",
    # named by migrations/0001_initial.py (upload paths, choices)
    "_data_path",
    "_plot_path",
    "_run_path",
    "_task_artefact_path",
    "_task_type_choices",
]
