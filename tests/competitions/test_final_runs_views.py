"""Final runs, hidden runs and the compare page through Django's client, role by
role: anonymous, participant (the run's team), other team, organiser."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from evalhub.competitions.models import Submission
from tests.api.fixtures import scored, secret_test_set  # noqa: F401  (fixtures)
from tests.competitions.runs import stored_run as _run

pytestmark = pytest.mark.django_db

SECRET_METHOD = "zz-hidden-method-q7"


@pytest.fixture
def world(phase, test_set, private_test_set, team, participant, other_team, outsider):  # noqa: ANN001, ANN201
    shown = _run(
        phase,
        team,
        participant,
        {test_set: 0.4321, private_test_set: 0.2468},
        minutes_ago=20,
        method="shown-method",
    )
    hidden = _run(
        phase,
        team,
        participant,
        {test_set: 0.9753, private_test_set: 0.8642},
        minutes_ago=10,
        method=SECRET_METHOD,
    )
    rival = _run(
        phase,
        other_team,
        outsider,
        {test_set: 0.5555, private_test_set: 0.3333},
        minutes_ago=5,
        method="rival-method",
    )
    return {"shown": shown, "hidden": hidden, "rival": rival}


@pytest.fixture
def clients(client_factory, participant, outsider, organiser):  # noqa: ANN001, ANN201
    return client_factory(participant, outsider, organiser)


@pytest.fixture
def client_factory():  # noqa: ANN201
    from django.test import Client

    def make(participant, outsider, organiser):  # noqa: ANN001, ANN202
        out = {"anonymous": Client()}
        for role, user in (
            ("participant", participant),
            ("other_team", outsider),
            ("organiser", organiser),
        ):
            out[role] = Client()
            out[role].force_login(user)
        return out

    return make


def _hide(client, run):  # noqa: ANN001, ANN202
    return client.post(
        reverse("competitions:run-visibility", args=[run.pk]), {"hidden": "1"}
    )


def test_only_the_team_hides_a_run_and_it_disappears_for_others(
    world, clients, task, phase, test_set
):
    hidden = world["hidden"]
    assert _hide(clients["anonymous"], hidden).status_code == 302  # login
    assert _hide(clients["other_team"], hidden).status_code == 404
    assert _hide(clients["organiser"], hidden).status_code == 404
    assert not Submission.objects.get(pk=hidden.pk).hidden
    assert _hide(clients["participant"], hidden).status_code == 302
    assert Submission.objects.get(pk=hidden.pk).hidden

    urls = [
        reverse("competitions:leaderboard-detail", args=[task.slug, phase.slug]),
        reverse("competitions:leaderboard-json", args=[task.slug, phase.slug]),
        reverse("competitions:ranking-detail", args=[task.slug, phase.slug]),
        reverse("api:leaderboard-export", args=[task.slug, phase.slug, "csv"]),
        reverse("api:leaderboard-export", args=[task.slug, phase.slug, "json"]),
        reverse("api:leaderboard-export", args=[task.slug, phase.slug, "tex"]),
        reverse("api:api-v1:leaderboard-detail", args=[task.slug, phase.slug]),
        reverse("rankings:significance-detail", args=[test_set.pk]),
    ]
    run_urls = [
        reverse("competitions:run-detail", args=[hidden.pk]),
        reverse("competitions:run-status", args=[hidden.pk]),
        reverse("api:api-v1:run-detail", args=[hidden.pk]),
        reverse("competitions:runs-compare", args=[task.slug, phase.slug])
        + f"?runs={hidden.pk}&runs={world['rival'].pk}",
    ]
    for role in ("anonymous", "other_team"):
        c = clients[role]
        for url in urls:
            response = c.get(url)
            assert response.status_code == 200, (role, url)
            assert SECRET_METHOD.encode() not in response.content, (role, url)
            assert b"0.9753" not in response.content, (role, url)
        for url in run_urls:
            assert c.get(url).status_code in (401, 404), (role, url)
    for role in ("participant", "organiser"):
        for url in run_urls[:2]:
            response = clients[role].get(url)
            assert response.status_code == 200, (role, url)
    # The team sees it in its runs list; organisers on the (marked) board.
    task_page = clients["participant"].get(task.get_absolute_url())
    assert SECRET_METHOD.encode() in task_page.content
    board = clients["organiser"].get(urls[0])
    assert SECRET_METHOD.encode() in board.content and b"hidden" in board.content


def test_choosing_final_runs_through_the_pages(world, clients, phase, private_test_set):
    final_url = reverse("competitions:run-final", args=[world["shown"].pk])
    assert clients["other_team"].post(final_url, {"final": "1"}).status_code == 404
    response = clients["participant"].post(final_url, {"final": "1"}, follow=True)
    assert b"is now one of your final runs" in response.content
    assert Submission.objects.get(pk=world["shown"].pk).final_selected
    # A second final run is refused with a clear message (N = 1).
    response = clients["participant"].post(
        reverse("competitions:run-final", args=[world["hidden"].pk]),
        {"final": "1", "next": "/tasks/bucc-test/"},
        follow=True,
    )
    assert b"at most 1 final run" in response.content
    assert response.redirect_chain[-1][0] == "/tasks/bucc-test/"
    assert not Submission.objects.get(pk=world["hidden"].pk).final_selected
    # An off-site "next" is ignored.
    response = clients["participant"].post(
        final_url, {"final": "0", "next": "https://example.org/"}
    )
    assert response["Location"] == world["shown"].get_absolute_url()
    # Organisers see the choices on the dashboard.
    clients["participant"].post(final_url, {"final": "1"})
    dash = clients["organiser"].get(
        reverse("competitions:task-dashboard", args=[phase.task.slug])
    )
    assert b"Final runs chosen" in dash.content
    assert f"#{world['shown'].pk}</a> shown-method".encode() in dash.content


def test_the_task_page_lists_the_teams_runs_with_controls(world, clients, task):
    page = clients["participant"].get(task.get_absolute_url()).content.decode()
    assert "Choose as final" in page and "Hide" in page
    assert "Compare the ticked runs" in page
    assert "Runs are public by default" in page
    other = clients["other_team"].get(task.get_absolute_url()).content.decode()
    assert SECRET_METHOD not in other


def test_submit_form_states_the_default_and_can_hide(
    clients, task, phase, test_set, team
):
    page = clients["participant"].get(
        reverse("competitions:run-submit", args=[task.slug, phase.slug])
    )
    assert b"By default a run is public" in page.content
    assert b"Hide this run from the public" in page.content


def test_compare_page_side_by_side_with_best_marked(
    world, clients, task, phase, test_set, private_test_set
):
    url = reverse("competitions:runs-compare", args=[task.slug, phase.slug])
    query = f"?runs={world['shown'].pk}&runs={world['rival'].pk}"
    response = clients["anonymous"].get(url + query)
    assert response.status_code == 200
    page = response.content.decode()
    assert "shown-method" in page and "rival-method" in page
    assert '<td class="num best"><strong>0.5555</strong>' in page
    assert "(−0.1234)" in page  # 0.4321 − 0.5555
    # The private test set's scores stay hidden until revealed.
    assert "0.2468" not in page and "0.3333" not in page
    organiser_page = clients["organiser"].get(url + query).content.decode()
    assert "0.2468" in organiser_page
    # 1 or 6 runs: a clear error; a run of another phase or unknown: not found.
    one = clients["anonymous"].get(url + f"?runs={world['shown'].pk}")
    assert one.status_code == 400 and b"between 2 and 5 runs" in one.content
    six = clients["anonymous"].get(url + "?runs=1,2,3,4,5,6")
    assert six.status_code == 400
    assert clients["anonymous"].get(url + query + "&runs=999999").status_code == 404
    # The team compares its hidden run; others do not see it exists.
    with_hidden = f"?runs={world['hidden'].pk}&runs={world['rival'].pk}"
    _hide(clients["participant"], world["hidden"])
    assert clients["participant"].get(url + with_hidden).status_code == 200
    assert clients["other_team"].get(url + with_hidden).status_code == 404


def test_the_leaderboard_offers_compare_checkboxes(world, clients, task, phase):
    page = clients["anonymous"].get(
        reverse("competitions:leaderboard-detail", args=[task.slug, phase.slug])
    )
    content = page.content.decode()
    assert 'form="compare-runs"' in content
    assert f'value="{world["rival"].pk}"' in content


def test_json_exports_and_api_carry_the_primary_metric_interval(
    world, clients, task, phase, test_set
):
    from evalhub.rankings.services import statistics

    statistics.refresh(test_set_id=test_set.pk)  # no per-item detail: no interval
    urls = [
        reverse("competitions:leaderboard-json", args=[task.slug, phase.slug]),
        reverse("api:leaderboard-export", args=[task.slug, phase.slug, "json"]),
        reverse("api:api-v1:leaderboard-detail", args=[task.slug, phase.slug]),
    ]
    for url in urls:
        data = json.loads(b"".join(_body(clients["anonymous"].get(url))))
        [board] = [b for b in data["test_sets"] if b["test_set"] == "public"]
        assert "signature" in board
        for row in board["rows"]:
            assert {"interval_low", "interval_high", "band"} <= set(row), url
            assert "hidden" not in row and "final" not in row


def _body(response):  # noqa: ANN001, ANN202
    if hasattr(response, "streaming_content"):
        return list(response.streaming_content)
    return [response.content]


def test_a_scored_runs_interval_is_in_the_json_exports(
    scored,  # noqa: F811
    client,
    task,
    phase,
    test_set,
):
    from evalhub.rankings.services import statistics

    statistics.refresh(test_set_id=test_set.pk)
    for url in (
        reverse("competitions:leaderboard-json", args=[task.slug, phase.slug]),
        reverse("api:api-v1:leaderboard-detail", args=[task.slug, phase.slug]),
    ):
        data = json.loads(client.get(url).content)
        [row] = [b for b in data["test_sets"] if b["test_set"] == "public"][0]["rows"]
        assert row["interval_low"] < row["ap"] < row["interval_high"]
        assert row["band"] == 1


def test_changes_to_runs_are_rate_limited_per_user(world, clients, settings):
    settings.SUBMIT_RATE = "2/600"
    url = reverse("competitions:run-visibility", args=[world["shown"].pk])
    codes = [
        clients["participant"].post(url, {"hidden": str(i % 2)}).status_code
        for i in range(1, 4)
    ]
    assert codes == [302, 302, 429]


def test_the_api_submits_a_hidden_run(
    client, task, phase, test_set, team, participant, demo_run
):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from evalhub.api.services import tokens

    secret = tokens.create(user=participant, name="cli").secret
    url = reverse("api:api-v1:run-create", args=[task.slug, phase.slug])
    response = client.post(
        url,
        {
            "method_name": "via api",
            "hidden": "true",
            "file": SimpleUploadedFile("run.tsv", demo_run),
        },
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["hidden"] is True and body["final_run"] is False
    assert Submission.objects.get(pk=body["id"]).hidden
    anonymous = client.get(reverse("api:api-v1:run-detail", args=[body["id"]]))
    assert anonymous.status_code == 404
