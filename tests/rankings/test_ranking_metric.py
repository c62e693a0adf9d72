"""Ranking a phase by a metric other than its task type's primary one (issue 45):
chosen on the console's ranking page or through the organiser API, it reorders the
board, the overall ranking, the Ladder's decisions and the package alike, each
saying which metric ranks it. Runs go through the scoring job, the settings through
web requests, the statistics through their refresh job.

The BUCC demo's runs: *dictionary* (AP 0.82, F1 0.50), *roots only* (AP 0.48,
F1 0.35) and *top 100* (the dictionary run's first 100 pairs, all correct: AP
100/243 = 0.41, F1 0.58): by AP dictionary > roots > top 100; by F1 top 100 >
dictionary > roots."""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile

import pytest
from django.urls import reverse

from evalhub.competitions.services import teams
from evalhub.competitions.services.boards import overall
from evalhub.rankings import jobs
from evalhub.rankings.models import PhaseRanking, TestSetStatistics
from tests.rankings.helpers import scored

pytestmark = pytest.mark.django_db

FORM = {
    "ladder_margin": "1.0",
    "bootstrap_samples": "1000",
    "seed": "0",
    "alpha": "0.05",
}


def _runs(bucc_demo) -> dict[str, bytes]:  # noqa: ANN001
    runs = {method: files["test"] for _, method, files in bucc_demo.runs}
    top = b"\n".join(runs["dictionary"].splitlines()[:100]) + b"\n"
    return {"dictionary": runs["dictionary"], "roots": runs["roots only"], "top": top}


def _refresh(phase) -> None:  # noqa: ANN001
    for ts in phase.test_sets.all():
        assert jobs.refresh_statistics(ts.pk) == "refreshed"


@pytest.fixture
def world(task, phase, test_set, private_test_set, bucc_demo, django_user_model):  # noqa: ANN001, ANN201
    """Three teams, one run each, scored by the scoring job; statistics refreshed."""
    out = {}
    for name, data in _runs(bucc_demo).items():
        user = django_user_model.objects.create_user(f"u-{name}")
        teams.register(task=task, user=user, new_team_name=f"Team {name}")
        out[name] = scored(phase, user, data, name, figures=False)
    _refresh(phase)
    return out


def _json_order(client, phase) -> tuple[list[int], dict]:  # noqa: ANN001
    url = reverse("competitions:leaderboard-json", args=[phase.task.slug, phase.slug])
    data = json.loads(client.get(url).content)
    board = next(b for b in data["test_sets"] if b["test_set"] == "public")
    return [r["run"] for r in board["rows"]], board


def _overall_order(client, phase) -> tuple[list[int], str]:  # noqa: ANN001
    """The overall ranking page's runs in page order (its run links), and the page."""
    url = reverse("competitions:ranking-detail", args=[phase.task.slug, phase.slug])
    page = client.get(url).content.decode()
    ids = re.findall(r'href="/runs/(\d+)/"', page)
    return [int(pk) for pk in dict.fromkeys(ids)], page


def _package(client, phase) -> dict:  # noqa: ANN001
    url = reverse("rankings:package", args=[phase.task.slug, phase.slug])
    response = client.get(url)
    if response.status_code == 202:  # its figures are drawn by a worker first
        assert jobs.prepare_package(phase.pk) >= 1
        response = client.get(url)
    assert response.status_code == 200, response.status_code
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    data = json.loads(
        next(archive.read(n) for n in archive.namelist() if n.endswith(".json"))
    )
    readme = next(archive.read(n) for n in archive.namelist() if n.endswith("README"))
    table = next(
        archive.read(n) for n in archive.namelist() if n.endswith("tables/public.tex")
    )
    return {"json": data, "readme": readme.decode(), "table": table.decode()}


def _public_table(package: dict) -> dict:
    return next(
        b["table"] for b in package["json"]["boards"] if b["table"]["label"] == "public"
    )


def _teams(table: dict) -> list[str]:
    """The package table's systems' teams, in table order."""
    return [s["name"].split(" (")[0] for s in table["systems"]]


def test_a_chosen_metric_reorders_board_overall_ranking_and_package(  # noqa: PLR0913
    client, world, task, phase, test_set, organiser, django_capture_on_commit_callbacks
):
    ids = {name: sub.pk for name, sub in world.items()}
    by_ap = [ids["dictionary"], ids["roots"], ids["top"]]
    by_f1 = [ids["top"], ids["dictionary"], ids["roots"]]
    client.force_login(organiser)
    order, board = _json_order(client, phase)
    assert order == by_ap and board["primary_metric"] == "ap"
    assert _overall_order(client, phase)[0] == by_ap
    table = _public_table(_package(client, phase))
    assert _teams(table) == ["Team dictionary", "Team roots", "Team top"]

    # The organiser ranks by F1 on the console's page: a refresh like any other.
    url = reverse("console:ranking", args=[task.slug, phase.slug])
    page = client.get(url).content.decode()
    assert 'value="f1"' in page and 'value="map_source"' not in page  # rankable only
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            url, {**FORM, "metric": "f1", "columns": "f1, p_at_100, ap"}
        )
    assert response.status_code == 302
    assert "Ranking metric" in client.get(response.url).content.decode()
    _refresh(phase)

    order, board = _json_order(client, phase)
    assert order == by_f1
    assert board["primary_metric"] == "f1" and "Ranked by F1" in board["ranked_by"]
    assert list(board["rows"][0])[6:9] == ["f1", "p_at_100", "ap"]  # column order
    leaderboard = client.get(
        reverse("competitions:leaderboard-detail", args=[task.slug, phase.slug])
    ).content.decode()
    assert "Ranked by F1 (f1; higher is better, chosen by the organisers)." in (
        leaderboard
    )
    overall_order, overall_page = _overall_order(client, phase)
    assert overall_order == by_f1 and "Ranked by F1" in overall_page
    # The statistics (intervals, bands, Ladder) rest on F1 now.
    data = TestSetStatistics.objects.get(test_set=test_set).data
    assert data["metric"] == "f1" and "metric:f1" in board["signature"]
    assert data["matrix"]["runs"] == by_f1
    package = _package(client, phase)
    table = _public_table(package)
    assert table["metric"] == "f1" and table["table_metrics"] == [
        "f1",
        "p_at_100",
        "ap",
    ]
    assert _teams(table) == ["Team top", "Team dictionary", "Team roots"]
    assert "ranked by: F1 (f1)" in package["readme"]
    assert "--metric f1 --columns f1,p_at_100,ap" in package["readme"]
    assert "ranked by F1" in package["table"]


def test_the_ladder_decides_by_the_chosen_metric(  # noqa: PLR0913
    client, task, phase, test_set, bucc_demo, participant, team, organiser,
    django_capture_on_commit_callbacks,
):  # fmt: skip
    runs = _runs(bucc_demo)
    PhaseRanking.objects.create(phase=phase, ladder=True)
    first = scored(phase, participant, runs["roots"], "roots", figures=False)
    second = scored(phase, participant, runs["top"], "top", figures=False)
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    client.force_login(participant)  # the public board as a team sees it
    assert _json_order(client, phase)[0] == [first.pk]  # worse AP: withheld

    client.force_login(organiser)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("console:ranking", args=[task.slug, phase.slug]),
            {**FORM, "ladder": "on", "metric": "f1"},
        )
    assert response.status_code == 302
    # Decisions taken under AP are not used under F1 until the Ladder is replayed.
    client.force_login(participant)
    assert _json_order(client, phase)[0] == []
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    order, board = _json_order(client, phase)
    assert order == [second.pk] and board["primary_metric"] == "f1"
    ladder = TestSetStatistics.objects.get(test_set=test_set).data["ladder"]
    assert ladder["metric"] == "f1"
    assert [s["run"] for s in ladder["steps"] if s["released"]] == [first.pk, second.pk]


def test_overall_ranking_by_average_rank(
    client, world, task, phase, private_test_set, organiser,
    django_capture_on_commit_callbacks,
):  # fmt: skip
    client.force_login(organiser)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("console:ranking", args=[task.slug, phase.slug]),
            {**FORM, "overall": "average_rank"},
        )
    assert response.status_code == 302
    order, page = _overall_order(client, phase)
    assert order == [world["dictionary"].pk, world["roots"].pk, world["top"].pk]
    assert "Mean rank by AP" in page and "ranks averaged" in page
    csv_url = reverse("competitions:ranking-plot", args=[task.slug, phase.slug, "csv"])
    rows = list(csv.reader(io.StringIO(client.get(csv_url).content.decode())))
    assert rows[0][-1] == "ranked_by" and rows[1][-1] == "ap:average_rank"
    assert [float(r[5]) for r in rows[1:]] == [1.0, 2.0, 3.0]  # ranks 1, 2, 3 twice


def test_mean_ranks_worked_example() -> None:
    ranks = overall.mean_ranks(
        {1: [0.9, 0.1], 2: [0.5, 0.5], 3: [0.1, 0.9], 4: [0.5, 0.1]},
        higher_is_better=True,
    )
    # Test set 1: 1st, 2nd (tied with 4), 4th; test set 2: 3rd (tied), 2nd, 1st.
    assert ranks == {1: 2.0, 2: 2.0, 3: 2.5, 4: 2.5}
    assert overall.mean_ranks({1: [3.0], 2: [1.0]}, higher_is_better=False) == {
        1: 2.0,
        2: 1.0,
    }


def test_the_organiser_api_sets_the_ranking_and_refuses_what_does_not_rank(
    client, task, phase, test_set, organiser
):
    from evalhub.api.services import tokens as token_service

    token = token_service.create(
        user=organiser, name="t", scope="organise", tasks=[task]
    )
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token.secret}"}
    url = f"/api/tasks/{task.slug}/phases/{phase.slug}/settings/ranking"
    read = client.get(url, **auth).json()
    assert (read["metric"], read["columns"], read["overall"]) == ("", [], "mean")
    changed = client.put(
        url,
        data=json.dumps({"metric": "p_at_100", "columns": ["p_at_100", "ap"]}),
        content_type="application/json",
        **auth,
    )
    assert changed.status_code == 200, changed.content
    assert changed.json()["metric"] == "p_at_100"
    refused = client.put(
        url,
        data=json.dumps({"metric": "map_source", "columns": ["nope"]}),
        content_type="application/json",
        **auth,
    )
    assert refused.status_code == 422
    detail = refused.json()["detail"]
    assert "not a metric this task type ranks by" in detail and "'nope'" in detail
    assert PhaseRanking.objects.get(phase=phase).metric == "p_at_100"
