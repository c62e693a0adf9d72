"""The board of the incremental statistics tests: TEAMS teams with two runs each
(close variants of the BUCC demo runs), scored through the scoring job, the
statistics job run after every scored run."""

from __future__ import annotations

from evalhub.competitions.services import teams
from evalhub.rankings import jobs
from evalhub.rankings.models import TestSetStatistics
from evalhub.rankings.services import statistics
from tests.rankings.helpers import scored

TEAMS = 4


def variant(data: bytes, k: int) -> bytes:
    """The run with every (k+2)-th pair moved one rank down: a distinct run close
    to the original (near ties make bands and the Ladder non-trivial)."""
    lines = data.decode("utf-8").splitlines()
    for i in range(k % 3, len(lines) - 1, k + 2):
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
    return ("\n".join(lines) + "\n").encode("utf-8")


def submit_all(task, phase, bucc_demo, user_model, test_set):  # noqa: ANN001, ANN201
    """TEAMS teams x 2 runs, the statistics job after every scored run (the runs'
    own figures left pending: these tests read none)."""
    bases = [files["test"] for _, _, files in bucc_demo.runs]
    runs = []
    users = []
    for i in range(TEAMS):
        user = user_model.objects.create_user(f"inc{i}")
        teams.register(task=task, user=user, new_team_name=f"Team {i}")
        users.append(user)
    for round_ in range(2):
        for i, user in enumerate(users):
            data = variant(bases[(i + round_) % len(bases)], i + 3 * round_)
            runs.append(scored(phase, user, data, f"m{i}-{round_}", figures=False))
            assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    return runs


def snapshot(test_set):  # noqa: ANN001, ANN201
    row = TestSetStatistics.objects.get(test_set=test_set)
    matrix = statistics.matrix_of(row.data, None)
    return (
        row.data,
        row.signature,
        statistics.with_pairs(test_set=test_set, matrix=matrix),
    )
