"""Two tracks' boards for the track figure tests: closed (teams 0, 1, 2: best,
middle, worst) and open (teams 1 and 0: best, worst), every team named as mathtext
would read it; the runs scored through the scoring job, the statistics and the
analyses (the comparison and analysis figures of every board) refreshed.

Built once per module (``shared_world``): a module imports ``track_world`` and
``track_runs_rows`` (the fixtures ``world`` and ``track_runs``) and the world's
rows (``demo_world``'s ``task_row`` ...); each test changes it in its own
transaction, rolled back after it. Deleting a figure's row
leaves its file in the world's folder (nothing deletes figure files with their
rows), so a later test finds every file its rows name."""

from __future__ import annotations

import pytest

from tests import demo_world, shared_world
from tests.figure_text import USER_NAME

CLOSED = ("c-best", "c-middle", "c-worst")
OPEN = ("o-best", "o-worst")


def _build() -> dict[str, object]:
    from evalhub.competitions.services import teams
    from evalhub.competitions.services.boards import analyses
    from evalhub.competitions.services.data import tracks
    from evalhub.rankings import jobs
    from tests.rankings.helpers import scored

    c = demo_world.public_campaign()
    demo, user_model, organiser = c.demo, c.users, c.organiser
    task, phase, test_set = c.task, c.phase, c.test_set
    tracks.save_track(phase=phase, slug="closed", name="Closed")
    tracks.save_track(phase=phase, slug="open", name="Open")
    users = []
    for i in range(3):
        user = user_model.objects.create_user(f"tf{i}")
        teams.register(task=task, user=user, new_team_name=f"{USER_NAME} team {i}")
        users.append(user)
    best, middle, worst = (files["test"] for _, _, files in demo.runs)
    plan = [
        (users[0], best, CLOSED[0], "closed"),
        (users[1], middle, CLOSED[1], "closed"),
        (users[2], worst, CLOSED[2], "closed"),
        (users[1], best, OPEN[0], "open"),
        (users[0], worst, OPEN[1], "open"),
    ]
    runs = {}
    for user, data, method, track in plan:
        runs[method] = scored(phase, user, data, method, track=track, figures=False).pk
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    analyses.refresh(test_set_id=test_set.pk)
    return {
        "organiser": organiser.pk,
        "task": task.pk,
        "phase": phase.pk,
        "test_set": test_set.pk,
        "runs": runs,
        "users": [u.pk for u in users],
    }


@pytest.fixture(scope="module", name="world")
def track_world(django_db_setup, django_db_blocker, tmp_path_factory):  # noqa: ANN001, ANN201
    folder = tmp_path_factory.mktemp("tracks") / "storage"
    yield from shared_world.kept(django_db_blocker, folder, _build)


@pytest.fixture(name="track_runs")
def track_runs_rows(world, isolated_storage, django_user_model):  # noqa: ANN001, ANN201
    """(method -> its run, the three users): fresh rows of the world's."""
    from evalhub.competitions.models import Submission

    runs = {m: Submission.objects.get(pk=pk) for m, pk in world.value["runs"].items()}
    users = [django_user_model.objects.get(pk=pk) for pk in world.value["users"]]
    return runs, users
