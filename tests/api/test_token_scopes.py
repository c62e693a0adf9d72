"""API tokens' scopes, expiry and last use: tokens made on the API-token page (a web
request), then used on the REST API. A ``submit`` token of a task's organiser can
neither replace gold nor read withheld scores nor change ranking settings; a
``read`` token cannot submit; an ``organise`` token organises the tasks it names
only; an expired token is refused. Every endpoint names a scope in ``auth.py``'s
terms. Revocation on a password change: ``test_token_revocation.py``."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from evalhub.api.auth import TokenAuth
from evalhub.api.models import ApiToken
from evalhub.competitions.models import SharedTask
from tests.api.fixtures import TASK, auth

pytestmark = pytest.mark.django_db

GOLD = f"{TASK}/phases/evaluation/testsets/public/test-data"
RANKING = f"{TASK}/phases/evaluation/settings/ranking"
BOARD = f"{TASK}/phases/evaluation/leaderboard"
RUNS = f"{TASK}/phases/evaluation/runs"


def make_token(client, user, **fields: object) -> str:  # noqa: ANN001
    """A token made on the API-token page by ``user``: its secret."""
    client.force_login(user)
    response = client.post(reverse("api:token-list"), {"name": "t", **fields})
    assert response.status_code == 201, response.content
    client.logout()
    return response.context["new_token"].secret


def test_a_submit_token_of_an_organiser_has_no_organiser_power(
    client, organiser, scored, test_set, secret_test_set, bucc_demo
):
    secret = make_token(client, organiser, scope="submit")
    gold = bucc_demo.test_sets[0].gold["gold"]
    stored = client.post(
        GOLD,
        {"gold": _upload(b"".join(gold.splitlines(keepends=True)[:-3]))},
        **auth(secret),
    )
    assert stored.status_code == 403
    assert "“organise” scope on task bucc-test" in stored.json()["detail"]
    assert reverse("api:token-list") in stored.json()["detail"]
    changed = client.put(
        RANKING,
        data=json.dumps({"ladder": True}),
        content_type="application/json",
        **auth(secret),
    )
    assert changed.status_code == 403 and "organise" in changed.json()["detail"]
    assert client.get(f"{TASK}/runs", **auth(secret)).status_code == 403
    # Reading: the public's board, no score of the private test set.
    boards = client.get(BOARD, **auth(secret)).json()["test_sets"]
    assert [b["test_set"] for b in boards] == ["public"]
    run = client.get(f"/api/runs/{scored.pk}", **auth(secret)).json()
    assert "secret" not in run["scores"]
    test_set.refresh_from_db()
    assert test_set.gold_version == 1


def test_a_read_token_cannot_submit(
    client, participant, team, phase, test_set, demo_run
):
    secret = make_token(client, participant, scope="read")
    response = client.post(
        RUNS,
        {"file": _upload(demo_run), "method_name": "m"},
        **auth(secret),
    )
    assert response.status_code == 403
    assert "“submit” scope" in response.json()["detail"]
    assert client.get(RUNS, **auth(secret)).status_code == 200
    assert not phase.submissions.exists()


def test_an_organise_token_organises_the_tasks_it_names_only(
    client, organiser, scored, secret_test_set
):
    other = SharedTask.objects.create(
        slug="other", title="Other", task_type="bilingual_term_alignment"
    )
    other.organisers.add(organiser)
    task = scored.phase.task
    client.force_login(organiser)
    page = client.get(reverse("api:token-list"))
    assert b"BUCC test task (bucc-test)" in page.content
    assert b"Other (other)" in page.content
    client.logout()
    # Without a task named, no token is made.
    client.force_login(organiser)
    refused = client.post(reverse("api:token-list"), {"name": "t", "scope": "organise"})
    assert refused.status_code == 200 and not ApiToken.objects.exists()
    client.logout()
    secret = make_token(client, organiser, scope="organise", tasks=[other.pk])
    assert client.get("/api/tasks/other/runs", **auth(secret)).status_code == 200
    refused = client.get(f"{TASK}/runs", **auth(secret))
    assert refused.status_code == 403
    assert "for other only" in refused.json()["detail"]
    assert "task bucc-test" in refused.json()["detail"]
    # On the task it does not name, it reads what the public reads.
    boards = client.get(BOARD, **auth(secret)).json()["test_sets"]
    assert [b["test_set"] for b in boards] == ["public"]
    # An organise token cannot submit runs.
    assert client.post(RUNS, **auth(secret)).status_code == 403
    mine = make_token(client, organiser, scope="organise", tasks=[task.pk])
    boards = client.get(BOARD, **auth(mine)).json()["test_sets"]
    assert [b["test_set"] for b in boards] == ["public", "secret"]


def test_a_token_expires_and_its_last_use_is_shown(client, participant, team, phase):
    secret = make_token(client, participant, scope="read", expires="7")
    token = ApiToken.objects.get()
    assert token.expires_at > timezone.now() + timedelta(days=6)
    client.force_login(participant)
    never = b'<td data-label="Last used">never</td>'
    assert never in client.get(reverse("api:token-list")).content
    client.logout()
    assert client.get(RUNS, **auth(secret)).status_code == 200
    token.refresh_from_db()
    assert token.last_used_at is not None
    client.force_login(participant)
    page = client.get(reverse("api:token-list")).content.decode()
    assert "Read only" in page and "What each scope allows" in page
    assert "<td>never</td>" not in page  # used, and expiring
    client.logout()
    ApiToken.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    expired = client.get(RUNS, **auth(secret))
    assert expired.status_code == 401 and "expired" in expired.json()["detail"]


def test_every_endpoint_names_the_scope_it_needs():
    """Every operation of the API authenticates through auth.py with a scope, and
    no call that changes anything is open to a read-only token."""
    from evalhub.api.api import api

    seen = 0
    for path_view in _operations(api):
        for op in path_view.operations:
            callbacks = op.auth_callbacks
            assert callbacks, (op.view_func.__name__, "no auth")
            for callback in callbacks:
                assert isinstance(callback, TokenAuth), op.view_func.__name__
                if set(op.methods) - {"GET", "HEAD"}:
                    assert callback.scope != "read", op.view_func.__name__
            seen += 1
    assert seen >= 15


def _operations(api):  # noqa: ANN001, ANN202
    for bound in api._get_bound_routers():
        yield from bound.path_operations.values()


def _upload(data: bytes):  # noqa: ANN202
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile("gold.tsv", data)
