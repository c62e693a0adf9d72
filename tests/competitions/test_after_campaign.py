"""Evaluation after the campaign: organisers keep a finished task open for
evaluation (the organiser API); a run submitted then is scored and ranked on the
"after the campaign" board only, never in the official results (the official
boards and exports, the home page's leader and counts, the overview-paper
package); with the gold released, the task page shows the ``evalhub score``
command that gives a run its official numbers offline."""

from __future__ import annotations

import html
import io
import json
import re
import shlex
from contextlib import redirect_stdout
from datetime import timedelta

import pytest
from django.utils import timezone

from evalhub.api.services import tokens as token_service
from evalhub.competitions import jobs
from evalhub.competitions.models import Phase, Score, SharedTask, Submission
from evalhub.competitions.services import teams
from evalhub.competitions.services.boards import home
from evalhub.competitions.services.data import datasets
from evalhub.competitions.services.runs import submit
from tasks import cli
from tests.competitions.archive_helpers import (
    finished_campaign,
    organiser_package,
    refresh,
)

pytestmark = pytest.mark.django_db


def _close(task: SharedTask) -> SharedTask:
    """The campaign ended yesterday (as its organisers set its dates)."""
    now = timezone.now()
    Phase.objects.filter(task=task).update(
        opens_at=now - timedelta(days=30), closes_at=now - timedelta(days=1)
    )
    return SharedTask.objects.get(pk=task.pk)


def _open(client, task: SharedTask, **body: object):  # noqa: ANN202, ANN001
    secret = token_service.create(
        user=task.organisers.get(), name="cli", scope="organise", tasks=[task]
    ).secret
    body = {"closes_at": (timezone.now() + timedelta(days=365)).isoformat(), **body}
    return client.put(
        f"/api/tasks/{task.slug}/after-campaign",
        data=json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    )


def test_refused_while_the_campaign_runs(isolated_storage, client):  # noqa: ANN001
    task = finished_campaign("term_extraction")
    response = _open(client, task)
    assert response.status_code == 409
    assert "once its last phase has closed" in response.json()["detail"]
    assert not Phase.objects.filter(task=task, after_campaign=True).exists()


def test_refused_while_a_private_test_set_is_not_revealed(isolated_storage, client):  # noqa: ANN001
    """Its copy would be public: a team submitting its campaign run again would read
    the private score the campaign never showed it."""
    task = _close(finished_campaign("term_extraction"))
    phase = task.phases.get()
    secret = phase.test_sets.first()
    secret.visibility, secret.revealed = "private", False
    secret.save()
    response = _open(client, task)
    assert response.status_code == 409
    detail = response.json()["detail"]
    assert f"private test set “{secret.name}” has not been revealed" in detail
    assert not Phase.objects.filter(task=task, after_campaign=True).exists()
    datasets.reveal(test_set=secret)
    assert _open(client, task).status_code == 200
    copy = Phase.objects.get(task=task, after_campaign=True).test_sets.get(
        slug=secret.slug
    )
    assert copy.visibility == "public"


def _card(task: SharedTask) -> tuple:
    (card,) = [c for c in home.task_cards(tasks=SharedTask.objects.all())]
    assert card.task == task
    return card.state, card.runs, card.leader


def test_a_run_after_the_campaign_is_ranked_on_its_own_board_only(
    isolated_storage,
    client,
    django_user_model,  # noqa: ANN001
):
    task = _close(finished_campaign("term_extraction"))
    refresh(task)  # the figures drawn with the phase closed
    official = task.phases.get()
    official_json = f"/tasks/{task.slug}/{official.slug}/leaderboard.json"
    before = (client.get(official_json).content, _card(task))
    package = organiser_package(client, task)

    response = _open(client, task, daily_limit=2, total_limit=3)
    assert response.status_code == 200
    after = Phase.objects.get(task=task, after_campaign=True)
    assert response.json()["leaderboard_url"].endswith(f"/{after.slug}/leaderboard/")
    assert [ts.slug for ts in after.test_sets.all()] == [
        ts.slug for ts in official.test_sets.all()
    ]
    late = django_user_model.objects.create_user("late-researcher")
    team = teams.register(task=task, user=late, new_team_name="Latecomers").team
    best = Submission.objects.filter(phase=official, hidden=False).first()
    with best.file.open("rb") as handle:
        data = handle.read()
    run = submit.submit_run(
        phase=after,
        user=late,
        filename="late.txt",
        data=data,
        method_name="late-system",
    )
    assert jobs.score_submission(run.pk) == "scored"
    refresh(task)
    assert submit.allowance(phase=after, team=team).left == 1  # its own limits

    after_page = client.get(f"/tasks/{task.slug}/{after.slug}/leaderboard/").content
    assert b"After the campaign:" in after_page and b"late-system" in after_page
    assert (
        b"late-system"
        in client.get(f"/tasks/{task.slug}/{after.slug}/leaderboard.json").content
    )
    # The official results are as they were.
    assert (client.get(official_json).content, _card(task)) == before
    official_page = client.get(f"/tasks/{task.slug}/{official.slug}/leaderboard/")
    assert b"late-system" not in official_page.content
    for fmt in ("csv", "json", "tex"):
        export = client.get(
            f"/exports/tasks/{task.slug}/{official.slug}/leaderboard.{fmt}"
        )
        assert export.status_code == 200 and b"late-system" not in export.content
    packages = organiser_package(client, task)
    official_package = f"/rankings/tasks/{task.slug}/{official.slug}/package.zip"
    assert packages[official_package] == package[official_package]
    after_package = f"/rankings/tasks/{task.slug}/{after.slug}/package.zip"
    assert packages[after_package][0] == 404  # no overview paper of it
    task_page = client.get(task.get_absolute_url()).content.decode()
    assert "Open for evaluation after the campaign" in task_page
    home_page = client.get("/").content.decode()
    assert "Open for evaluation after the campaign" in home_page
    assert f"/tasks/{task.slug}/{after.slug}/leaderboard/" in home_page


@pytest.mark.parametrize("kind", ["bilingual_term_alignment", "term_extraction"])
def test_the_released_gold_comes_with_the_command_that_gives_the_official_numbers(
    kind,
    isolated_storage,
    client,
    tmp_path,
    monkeypatch,  # noqa: ANN001
):
    task = _close(finished_campaign(kind))
    page = client.get(task.get_absolute_url()).content.decode()
    assert "evalhub score" not in page  # not before the gold is released
    datasets.release_gold(task=task)
    page = client.get(task.get_absolute_url()).content.decode()
    assert f"scorer version {task.type.version}" in page
    (command,) = re.findall(r'<code class="command">(.*?)</code>', page)
    args = shlex.split(html.unescape(command))
    assert args[:3] == ["evalhub", "score", task.task_type]
    # Every file the command names downloads from the task page.
    for href in re.findall(r'href="(/testsets/\d+/files/[^"]+)"', page):
        response = client.get(href)
        name = re.search(r'filename="([^"]+)"', response["Content-Disposition"])[1]
        (tmp_path / name).write_bytes(b"".join(response.streaming_content))
    for run in Submission.objects.filter(phase__task=task, hidden=False):
        with run.file.open("rb") as handle:
            (tmp_path / "RUN").write_bytes(handle.read())
        monkeypatch.chdir(tmp_path)
        out = io.StringIO()
        with redirect_stdout(out):
            assert cli.main(args[1:]) == 0
        offline = json.loads(out.getvalue())
        official = dict(
            Score.objects.filter(submission=run).values_list("metric", "value")
        )
        assert official and {k: offline.get(k) for k in official} == official
