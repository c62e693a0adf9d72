# ruff: noqa: F811  (the stranger and revoked fixtures are imported, then requested by name)
"""The organiser API with the test client: a bundle import, the task's runs with
every score (private, Ladder-withheld and hidden runs too), a run file and a phase's
runs as a zip, a gold draft with its preview confirmed by a second call; and the
refusals of each endpoint (no token, a revoked token, a participant, the organiser
of another task). The ranking settings: ``test_ranking_settings_api.py``."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from evalhub.api.services import tokens as token_service
from evalhub.competitions import jobs
from evalhub.competitions.models import SharedTask, Submission
from evalhub.competitions.services import roles
from tests.api.fixtures import (  # noqa: F401  (fixtures)
    REFUSED,
    TASK,
    auth,
    body,
    bundle_of,
    refusals,
    revoked,
    stranger,
)
from tests.zips import zip_bytes

pytestmark = pytest.mark.django_db

GOLD = f"{TASK}/phases/evaluation/testsets/public/test-data"


# --- a bundle -----------------------------------------------------------------------
def test_bundle_import_creates_the_task_for_its_importer(
    client, task, phase, test_set, organiser, tokens
):
    data = bundle_of(task, "bucc-pushed")
    response = client.post(
        "/api/bundles",
        {"bundle": SimpleUploadedFile("b.zip", data)},
        **auth(tokens["organiser"]),
    )
    assert response.status_code == 201, response.content
    assert response.json()["slug"] == "bucc-pushed"
    pushed = SharedTask.objects.get(slug="bucc-pushed")
    assert pushed.owner == organiser and roles.is_organiser(organiser, pushed)
    assert pushed.phases.get().test_sets.get().files.count() == 3


def test_a_bad_bundle_is_refused_with_file_and_line(client, task, tokens):
    manifest = b"slug: broken\ntitle: Broken\ntask_type: no_such_type\n"
    response = client.post(
        "/api/bundles",
        {"bundle": SimpleUploadedFile("b.zip", zip_bytes({"task.yaml": manifest}))},
        **auth(tokens["organiser"]),
    )
    assert response.status_code == 422
    errors = response.json()["errors"]
    assert {"file": "task.yaml", "line": 3} in [
        {"file": e["file"], "line": e["line"]} for e in errors
    ]
    assert "unknown task type" in response.content.decode()
    assert not SharedTask.objects.filter(slug="broken").exists()


def test_only_those_who_may_create_tasks_import_bundles(
    client, task, phase, test_set, tokens, revoked
):
    data = bundle_of(task, "bucc-pushed")
    for who, secret in (
        ("participant", tokens["participant"]),
        ("revoked", revoked),
        ("anonymous", None),
    ):
        response = client.post(
            "/api/bundles",
            {"bundle": SimpleUploadedFile("b.zip", data)},
            **auth(secret),
        )
        assert response.status_code == (403 if who == "participant" else 401), who
    assert not SharedTask.objects.filter(slug="bucc-pushed").exists()


# --- runs -----------------------------------------------------------------------------
def test_the_organiser_lists_every_run_with_every_score_at_once(
    client, tokens, submit_run, phase, test_set, private_test_set, bucc_demo
):
    """A Ladder phase: the superseded first run's public score is withheld from
    everyone else, the private test set's scores are not revealed, a third run is
    hidden by its team; the organiser's list has all of them."""
    from evalhub.rankings import jobs as ranking_jobs
    from evalhub.rankings.models import PhaseRanking

    PhaseRanking.objects.create(phase=phase, ladder=True)
    runs = {method: files["test"] for _, method, files in bucc_demo.runs}
    first = submit_run(runs["roots only"], method="first")
    jobs.score_submission(first.pk)
    second = submit_run(runs["dictionary"], method="second")
    jobs.score_submission(second.pk)
    hidden = submit_run(runs["dictionary"], method="hidden one", hidden=True)
    jobs.score_submission(hidden.pk)
    assert ranking_jobs.refresh_statistics(test_set.pk) == "refreshed"
    public = client.get(f"/api/runs/{first.pk}", **auth(tokens["other_team"]))
    assert public.json()["scores"] == {}  # withheld by the Ladder

    response = client.get(f"{TASK}/runs", **auth(tokens["organiser"]))
    assert response.status_code == 200
    data = response.json()
    listed = {r["id"]: r for r in data["runs"]}
    assert list(listed) == [first.pk, second.pk, hidden.pk]  # oldest first
    for sub in (first, second, hidden):
        stored = {
            ts.slug: {s.metric: s.value for s in sub.scores.filter(test_set=ts)}
            for ts in (test_set, private_test_set)
        }
        assert listed[sub.pk]["scores"] == stored
        assert set(stored) == {"public", "private"} and all(stored.values())
    assert listed[hidden.pk]["hidden"] and listed[hidden.pk]["method_name"] == (
        "hidden one"
    )
    assert listed[first.pk]["file_url"] == f"{TASK}/runs/{first.pk}/file"
    assert [ts["slug"] for ts in data["test_sets"]] == ["public", "private"]
    narrowed = client.get(
        f"{TASK}/runs?phase=evaluation&status=queued", **auth(tokens["organiser"])
    )
    assert narrowed.status_code == 200 and narrowed.json()["runs"] == []
    bad = client.get(f"{TASK}/runs?status=bogus", **auth(tokens["organiser"]))
    assert bad.status_code == 422 and "scored" in bad.json()["detail"]


def test_runs_and_their_files_are_refused_to_everyone_else(
    client, tokens, stranger, revoked, scored
):
    for url in (
        f"{TASK}/runs",
        f"{TASK}/runs/{scored.pk}/file",
        f"{TASK}/phases/evaluation/runs.zip",
    ):
        statuses = refusals(client, "get", url, tokens, stranger, revoked)
        assert statuses == REFUSED, url


def test_a_run_file_and_the_phase_zip(client, tokens, scored, demo_run):
    headers = auth(tokens["organiser"])
    response = client.get(f"{TASK}/runs/{scored.pk}/file", **headers)
    assert response.status_code == 200 and body(response) == demo_run
    assert 'filename="run.tsv"' in response["Content-Disposition"]
    assert (
        client.get(f"{TASK}/runs/{scored.pk + 99}/file", **headers).status_code == 404
    )
    archive = client.get(f"{TASK}/phases/evaluation/runs.zip", **headers)
    assert archive.status_code == 200 and archive["Content-Type"] == "application/zip"
    opened = zipfile.ZipFile(io.BytesIO(body(archive)))
    rows = list(csv.DictReader(io.StringIO(opened.read("manifest.csv").decode())))
    assert [int(r["run"]) for r in rows] == [scored.pk]
    assert opened.read(rows[0]["file"]) == demo_run
    assert "secret:ap" in rows[0] and rows[0]["secret:ap"]  # the private score too


def test_a_run_of_another_task_is_not_found(client, tokens, scored, django_user_model):
    other = SharedTask.objects.create(
        slug="other", title="Other", task_type="bilingual_term_alignment"
    )
    org = django_user_model.objects.get(username="org")
    other.organisers.add(org)
    both = token_service.create(
        user=org, name="both", scope="organise", tasks=[other, scored.phase.task]
    ).secret
    response = client.get(f"/api/tasks/other/runs/{scored.pk}/file", **auth(both))
    assert response.status_code == 404


def _half(gold: bytes) -> bytes:
    lines = gold.splitlines(keepends=True)
    return b"".join(lines[: len(lines) // 2])


# --- gold -------------------------------------------------------------------------------
def _gold(client, secret, data: bytes, name: str = "new-gold.tsv", role: str = "gold"):  # noqa: ANN001, ANN202
    return client.post(GOLD, {role: SimpleUploadedFile(name, data)}, **auth(secret))


def test_test_data_draft_previews_then_a_second_call_stores_and_rescores(
    client, tokens, scored, test_set, bucc_demo, django_capture_on_commit_callbacks
):
    gold = bucc_demo.test_sets[0].gold["gold"]
    fewer = b"".join(gold.splitlines(keepends=True)[:-3])
    version = test_set.gold_version
    response = _gold(client, tokens["organiser"], fewer)
    assert response.status_code == 201, response.content
    draft = response.json()
    assert draft["files"] == [
        {
            "role": "gold",
            "label": draft["files"][0]["label"],
            "private": True,
            "name": "new-gold.tsv",
            "size": len(fewer),
            "replaces": "gold.tsv",
            "replaces_size": len(gold),
        }
    ]
    counts = {c["label"]: (c["before"], c["after"]) for c in draft["counts"]}
    lines = len(gold.splitlines())
    assert counts["gold pairs"] == (lines, lines - 3)
    assert draft["changes_gold"] and draft["has_gold"] and draft["examples"]
    assert [r["id"] for r in draft["rescored"]] == [scored.pk]
    assert draft["url"] == f"{GOLD}/{draft['token']}"
    # Nothing is stored yet; the preview can be read again.
    test_set.refresh_from_db()
    assert test_set.gold_version == version
    again = client.get(draft["url"], **auth(tokens["organiser"]))
    assert again.status_code == 200 and again.json() == draft
    # The second call stores it: the gold version moves, the run is scored again.
    with django_capture_on_commit_callbacks(execute=True):
        stored = client.post(draft["url"], **auth(tokens["organiser"]))
    assert stored.status_code == 200, stored.content
    assert stored.json() == {"files": 1, "rescored": 1, "gold_version": version + 1}
    test_set.refresh_from_db()
    assert test_set.gold_version == version + 1
    assert test_set.files.get(role="gold").file.read() == fewer
    scored.refresh_from_db()
    assert scored.status == Submission.Status.QUEUED
    # A stored draft is gone.
    gone = client.post(draft["url"], **auth(tokens["organiser"]))
    assert gone.status_code == 404 and "upload the files again" in gone.json()["detail"]


def test_bad_gold_is_refused_with_file_and_line_and_nothing_kept(
    client, tokens, test_set, bucc_demo
):
    gold = bucc_demo.test_sets[0].gold["gold"]
    broken = gold + b"only one column\n"
    response = _gold(client, tokens["organiser"], broken, name="mine.tsv")
    assert response.status_code == 422
    line = broken.count(b"\n")
    errors = response.json()["errors"]
    assert any(e["file"] == "mine.tsv" and e["line"] == line for e in errors), errors
    unknown = _gold(client, tokens["organiser"], gold, role="nonsense")
    assert unknown.status_code == 422
    assert "unknown file role" in unknown.json()["errors"][0]["message"]


def test_a_draft_checked_on_files_changed_since_is_refused(
    client, tokens, scored, test_set, bucc_demo
):
    gold = bucc_demo.test_sets[0].gold["gold"].splitlines(keepends=True)
    first = _gold(client, tokens["organiser"], b"".join(gold[:-1])).json()
    co = test_set.phase.task.organisers.create(username="co-org")
    co_token = token_service.create(
        user=co, name="co", scope="organise", tasks=[test_set.phase.task]
    ).secret
    other = _gold(client, co_token, b"".join(gold[:-2])).json()
    assert client.post(other["url"], **auth(co_token)).status_code == 200
    stale = client.post(first["url"], **auth(tokens["organiser"]))
    assert stale.status_code == 409 and "changed" in stale.json()["detail"]


def test_a_draft_is_discarded_and_is_its_organisers_only(
    client, tokens, test_set, bucc_demo, django_user_model
):
    gold = bucc_demo.test_sets[0].gold["gold"]
    draft = _gold(client, tokens["organiser"], _half(gold)).json()
    co = test_set.phase.task.organisers.create(username="co-org")
    co_token = token_service.create(
        user=co, name="co", scope="organise", tasks=[test_set.phase.task]
    ).secret
    # Another organiser of the task cannot read, store or discard it.
    assert client.get(draft["url"], **auth(co_token)).status_code == 404
    assert client.post(draft["url"], **auth(co_token)).status_code == 404
    assert client.delete(draft["url"], **auth(co_token)).status_code == 404
    assert client.delete(draft["url"], **auth(tokens["organiser"])).status_code == 204
    assert client.get(draft["url"], **auth(tokens["organiser"])).status_code == 404
    test_set.refresh_from_db()
    assert test_set.files.get(role="gold").size == len(gold)


def test_gold_calls_are_refused_to_everyone_else(
    client, tokens, stranger, revoked, test_set, bucc_demo
):
    from evalhub.competitions.services.data import drafts

    gold = bucc_demo.test_sets[0].gold["gold"]
    for who, status in refusals(
        client,
        "post",
        GOLD,
        tokens,
        stranger,
        revoked,
        data={"gold": SimpleUploadedFile("g.tsv", gold[:200])},
    ).items():
        assert status == REFUSED[who], who
    draft = _gold(client, tokens["organiser"], _half(gold)).json()
    for method in ("get", "post", "delete"):
        statuses = refusals(client, method, draft["url"], tokens, stranger, revoked)
        assert statuses == REFUSED, method
    # The organiser's draft is untouched; nobody else made one.
    organiser = test_set.phase.task.organisers.get(username="org")
    assert drafts.load(
        test_set_id=test_set.pk, user_id=organiser.pk, token=draft["token"]
    ).files


def test_a_draft_task_is_not_found_for_those_who_do_not_organise_it(
    client, tokens, stranger, task, test_set
):
    SharedTask.objects.filter(pk=task.pk).update(state=SharedTask.State.DRAFT)
    response = client.get(f"{TASK}/runs", **auth(stranger))
    assert response.status_code == 404
    assert client.get(f"{TASK}/runs", **auth(tokens["organiser"])).status_code == 200


def test_openapi_lists_the_organiser_endpoints(client):
    paths = client.get("/api/openapi.json").json()["paths"]
    assert "post" in paths["/api/bundles"]
    assert "get" in paths["/api/tasks/{slug}/runs"]
    assert "get" in paths["/api/tasks/{slug}/runs/{run_id}/file"]
    assert "get" in paths["/api/tasks/{slug}/phases/{phase}/runs.zip"]
    gold = "/api/tasks/{slug}/phases/{phase}/testsets/{test_set}/test-data"
    assert "post" in paths[gold]
    assert set(paths[gold + "/{token}"]) == {"get", "post", "delete"}
    body_schema = paths[gold]["post"]["requestBody"]["content"]
    assert "multipart/form-data" in body_schema
