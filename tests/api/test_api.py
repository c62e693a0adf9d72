"""The REST API with the test client: token auth, submitting good and bad files,
run status, team runs, leaderboards role by role, task list and detail, OpenAPI."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from evalhub.api.models import ApiToken
from evalhub.competitions import jobs
from evalhub.competitions.models import Submission
from evalhub.competitions.services.data import datasets
from tests.api.fixtures import body, gold_forms, private_score_forms

pytestmark = pytest.mark.django_db

RUNS = "/api/tasks/bucc-test/phases/evaluation/runs"
BOARD = "/api/tasks/bucc-test/phases/evaluation/leaderboard"


def _auth(secret: str | None) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"} if secret else {}


def _post_run(client, secret, data: bytes, name: str = "run.tsv", **fields):  # noqa: ANN001, ANN202
    return client.post(
        RUNS,
        {"method_name": "dictionary", **fields, "file": SimpleUploadedFile(name, data)},
        **_auth(secret),
    )


# --- tokens -------------------------------------------------------------------------
def test_token_page_shows_the_token_once_and_stores_only_its_hash(
    client, participant, phase, test_set
):
    url = reverse("api:token-list")
    assert client.get(url).status_code == 302  # login required
    client.force_login(participant)
    response = client.post(url, {"name": "laptop", "scope": "submit"})
    assert response.status_code == 201
    assert response["Cache-Control"] == "no-store"
    token = ApiToken.objects.get(user=participant)
    secret = response.context["new_token"].secret
    assert secret.encode() in response.content
    stored = [str(v) for v in ApiToken.objects.values_list().get()]
    assert not any(secret in v for v in stored)
    assert token.digest != secret and len(token.digest) == 64
    # Shown once: the list page no longer has it.
    again = client.get(url)
    assert again.status_code == 200 and secret.encode() not in again.content
    assert token.prefix.encode() in again.content
    # The token works, then is revoked from the page and stops working.
    client.logout()
    assert client.get(f"{RUNS}", **_auth(secret)).status_code == 200
    client.force_login(participant)
    revoke = reverse("api:token-revoke", args=[token.pk])
    assert client.get(revoke).status_code == 405
    assert client.post(revoke).status_code == 302
    client.logout()
    assert client.get(RUNS, **_auth(secret)).status_code == 401


def test_a_user_cannot_revoke_someone_elses_token(
    client, participant, outsider, tokens
):
    token = ApiToken.objects.get(user=participant)
    client.force_login(outsider)
    response = client.post(reverse("api:token-revoke", args=[token.pk]))
    assert response.status_code == 404
    token.refresh_from_db()
    assert token.is_active


def test_bad_or_missing_token(client, phase, test_set, tokens, demo_run):
    assert client.get(RUNS).status_code == 401
    assert client.get(RUNS, **_auth("evh_nope")).status_code == 401
    assert client.get(RUNS, HTTP_AUTHORIZATION="Basic abc").status_code == 401
    assert _post_run(client, None, demo_run).status_code == 401
    # Reading endpoints work without a token, but not with a bad one.
    assert client.get("/api/tasks").status_code == 200
    assert client.get("/api/tasks", **_auth("evh_nope")).status_code == 401
    assert not Submission.objects.exists()


def test_session_cookie_is_not_an_api_credential(client, participant, phase, test_set):
    client.force_login(participant)
    assert client.get(RUNS).status_code == 401


# --- submitting ---------------------------------------------------------------------
def test_submit_good_file_then_status_until_scored(
    client, tokens, team, phase, test_set, secret_test_set, demo_run
):
    response = _post_run(client, tokens["participant"], demo_run)
    assert response.status_code == 201, response.content
    run = response.json()
    sub = Submission.objects.get()
    assert run["id"] == sub.pk and run["status"] == "queued" and not run["done"]
    assert run["team"] == "Alpha" and run["url"] == f"/runs/{sub.pk}/"
    status = client.get(f"/api/runs/{sub.pk}", **_auth(tokens["participant"]))
    assert status.json()["status"] == "queued"

    jobs.score_submission(sub.pk)
    run = client.get(f"/api/runs/{sub.pk}", **_auth(tokens["participant"])).json()
    assert run["status"] == "scored" and run["done"] and "final" not in run
    stored = {s.metric: s.value for s in sub.scores.filter(test_set=test_set)}
    assert run["scores"] == {"public": stored}  # not the private test set's
    organiser_view = client.get(
        f"/api/runs/{sub.pk}", **_auth(tokens["organiser"])
    ).json()
    assert set(organiser_view["scores"]) == {"public", "secret"}
    anonymous = client.get(f"/api/runs/{sub.pk}").json()
    assert anonymous["scores"] == {"public": stored}
    assert anonymous["warnings"] == [] and anonymous["errors"] == []


def test_submit_bad_file_gives_422_with_file_and_line_and_counts_nothing(
    client, tokens, team, phase, test_set, demo_run
):
    bad = demo_run + b"only-one-column\n"
    response = _post_run(client, tokens["participant"], bad, name="bad.tsv")
    assert response.status_code == 422
    payload = response.json()
    assert payload["total"] >= 1
    problem = payload["errors"][0]
    assert problem["file"] == "bad.tsv"
    assert problem["line"] == bad.decode().count("\n")
    assert problem["message"]
    rejected = Submission.objects.get()
    assert rejected.status == "rejected" and payload["run"] == rejected.pk
    # The team's own status view shows the errors; the public's does not.
    mine = client.get(f"/api/runs/{rejected.pk}", **_auth(tokens["participant"]))
    assert mine.json()["errors"] and "line" in mine.json()["errors"][0]
    assert client.get(f"/api/runs/{rejected.pk}").json()["errors"] == []
    runs = client.get(RUNS, **_auth(tokens["participant"])).json()
    assert runs["allowance"]["total_left"] == phase.total_limit


def test_submit_without_method_name_is_422(
    client, tokens, team, phase, test_set, demo_run
):
    response = _post_run(client, tokens["participant"], demo_run, method_name=" ")
    assert response.status_code == 422
    assert "method name" in response.json()["detail"]
    assert not Submission.objects.exists()


def test_submit_refused_is_403(
    client, tokens, team, phase, test_set, demo_run, django_user_model
):
    from evalhub.api.services import tokens as token_service

    loner = django_user_model.objects.create_user("loner", password="pw-loner-1")
    secret = token_service.create(user=loner, name="x").secret
    response = _post_run(client, secret, demo_run)
    assert response.status_code == 403
    assert "not registered" in response.json()["detail"]
    phase.closes_at = timezone.now() - timedelta(minutes=1)
    phase.save()
    response = _post_run(client, tokens["participant"], demo_run)
    assert response.status_code == 403 and "closed" in response.json()["detail"]
    assert not Submission.objects.exists()


def test_submit_to_unknown_or_draft_task_is_404(
    client, tokens, task, team, phase, test_set, demo_run
):
    task.state = "draft"
    task.save()
    assert _post_run(client, tokens["participant"], demo_run).status_code == 404
    assert client.get("/api/tasks/bucc-test").status_code == 404
    assert client.get("/api/tasks/nope").status_code == 404


# --- reading ------------------------------------------------------------------------
def test_team_runs_are_the_users_teams_only(client, tokens, scored, other_team):
    mine = client.get(RUNS, **_auth(tokens["participant"])).json()
    assert [r["id"] for r in mine["runs"]] == [scored.pk]
    assert mine["allowance"]["team"] == "Alpha"
    assert mine["allowance"]["total_left"] == 4
    theirs = client.get(RUNS, **_auth(tokens["other_team"])).json()
    assert theirs["runs"] == [] and theirs["allowance"]["team"] == "Mallory's"


ROLES = ("anonymous", "participant", "other_team")


def test_leaderboard_hides_private_test_sets_until_revealed(
    client, tokens, scored, test_set, secret_test_set, bucc_demo
):
    stored = {s.metric: s.value for s in scored.scores.filter(test_set=test_set)}
    secret_forms = private_score_forms(scored, test_set, secret_test_set)
    for role in ROLES:
        response = client.get(BOARD, **_auth(tokens.get(role)))
        assert response.status_code == 200
        boards = response.json()["test_sets"]
        assert [b["test_set"] for b in boards] == ["public"], role
        row = boards[0]["rows"][0]
        assert row["run"] == scored.pk and row["ap"] == stored["ap"]
        content = body(response)
        for form in secret_forms + gold_forms(bucc_demo):
            assert form not in content, (role, form)
    datasets.reveal(test_set=secret_test_set)
    for role in ROLES:
        revealed = client.get(BOARD, **_auth(tokens.get(role))).json()["test_sets"]
        assert [b["test_set"] for b in revealed] == ["public", "secret"], role


def test_organiser_sees_private_leaderboard(client, tokens, scored, secret_test_set):
    boards = client.get(BOARD, **_auth(tokens["organiser"])).json()["test_sets"]
    assert [b["test_set"] for b in boards] == ["public", "secret"]
    stored = scored.scores.get(test_set=secret_test_set, metric="ap").value
    assert boards[1]["rows"][0]["ap"] == stored


def test_task_list_and_detail(client, tokens, task, phase, test_set):
    tasks = client.get("/api/tasks").json()
    assert [t["slug"] for t in tasks] == ["bucc-test"]
    detail = client.get("/api/tasks/bucc-test").json()
    assert detail["primary_metric"] == "ap"
    files = detail["phases"][0]["test_sets"][0]["files"]
    assert {f["role"] for f in files} == {"source_terms", "target_terms"}  # no gold
    organiser = client.get("/api/tasks/bucc-test", **_auth(tokens["organiser"])).json()
    roles = {f["role"] for f in organiser["phases"][0]["test_sets"][0]["files"]}
    assert "gold" in roles
    task.state = "draft"
    task.save()
    assert client.get("/api/tasks").json() == []
    assert client.get("/api/tasks", **_auth(tokens["participant"])).json() == []
    assert [
        t["slug"] for t in client.get("/api/tasks", **_auth(tokens["organiser"])).json()
    ] == ["bucc-test"]


def test_openapi_schema_and_docs(client):
    schema = client.get("/api/openapi.json")
    assert schema.status_code == 200
    data = schema.json()
    assert "/api/tasks/{slug}/phases/{phase}/runs" in data["paths"]
    post = data["paths"]["/api/tasks/{slug}/phases/{phase}/runs"]["post"]
    assert {"201", "403", "422"} <= set(post["responses"])
    assert "multipart/form-data" in post["requestBody"]["content"]
    assert any(
        s.get("scheme") == "bearer"
        for s in data["components"]["securitySchemes"].values()
    )
    assert client.get("/api/docs").status_code == 200


def test_run_status_hides_scores_the_ladder_has_not_released(
    client, tokens, submit_run, phase, test_set, bucc_demo
):
    from evalhub.rankings import jobs as ranking_jobs
    from evalhub.rankings.models import PhaseRanking

    PhaseRanking.objects.create(phase=phase, ladder=True)
    runs = {method: files["test"] for _, method, files in bucc_demo.runs}
    first = submit_run(runs["roots only"], method="first")
    jobs.score_submission(first.pk)
    second = submit_run(runs["dictionary"], method="second")
    jobs.score_submission(second.pk)
    assert ranking_jobs.refresh_statistics(test_set.pk) == "refreshed"
    # The clearly better second run superseded the first on the public board.
    for role in ("participant", "other_team"):
        headers = _auth(tokens[role])
        superseded = client.get(f"/api/runs/{first.pk}", **headers).json()
        assert superseded["status"] == "scored" and superseded["scores"] == {}, role
        shown = client.get(f"/api/runs/{second.pk}", **headers).json()
        assert set(shown["scores"]) == {"public"}, role
    assert client.get(f"/api/runs/{first.pk}").json()["scores"] == {}
    organiser = client.get(f"/api/runs/{first.pk}", **_auth(tokens["organiser"]))
    assert set(organiser.json()["scores"]) == {"public"}


def test_a_runs_scores_are_listed_in_one_order_whatever_order_they_were_stored(
    client, tokens, scored
):  # noqa: ANN001
    """An archive import stores a run's scores in the file's order, the scoring job
    in its own: the API answers the same bytes either way (test set, then metric)."""
    from evalhub.competitions.models import Score

    url = f"/api/runs/{scored.pk}"
    runs = "/api/tasks/bucc-test/runs"
    before = client.get(url, **_auth(tokens["organiser"])).content
    listed = client.get(runs, **_auth(tokens["organiser"])).content
    rows = list(
        Score.objects.filter(submission=scored).order_by("-test_set", "-metric")
    )
    Score.objects.filter(submission=scored).delete()
    for row in rows:  # stored again, last metric first
        row.pk = None
        row.save()
    assert client.get(url, **_auth(tokens["organiser"])).content == before
    assert client.get(runs, **_auth(tokens["organiser"])).content == listed
    scores = json.loads(before)["scores"]
    assert len(scores) == 2 and all(list(s) == sorted(s) for s in scores.values())


def test_a_test_sets_files_are_listed_inputs_first_by_role_whatever_the_upload_order(
    client, tokens, phase, bucc_demo
):  # noqa: ANN001
    """Inputs uploaded in reverse order of their roles (as an archive import or an
    organiser may): the API and the task page list inputs by role, then gold."""
    from evalhub.competitions.models import TestSet

    ts = TestSet.objects.create(phase=phase, slug="later", name="Later", order=2)
    data = bucc_demo.test_sets[0]
    for role, content in [*reversed(data.inputs.items()), *data.gold.items()]:
        datasets.store_file(
            test_set=ts, role=role, filename=f"{role}.tsv", data=content
        )
    detail = client.get("/api/tasks/bucc-test", **_auth(tokens["organiser"])).json()
    listed = [
        f["role"]
        for t in detail["phases"][0]["test_sets"]
        if t["slug"] == "later"
        for f in t["files"]
    ]
    assert listed == [*sorted(data.inputs), *sorted(data.gold)]
    page = client.get(reverse("competitions:task-detail", args=["bucc-test"]))
    html = page.content.decode()
    places = [
        html.find(reverse("competitions:testset-file", args=[ts.pk, role]))
        for role in listed
    ]
    assert -1 not in places[:2] and places[:2] == sorted(places[:2])
