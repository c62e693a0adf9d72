"""The leaderboard exports (CSV, JSON, LaTeX, the board's ``leaderboard.json`` and
the API's leaderboard) are written once per change and audience and kept under the boards' versions:
a visitor and a participant share the public's text, organisers have their own
(hidden runs marked), and a change (a run its team hides) shows in the next
request. Through web requests on the sentence-alignment demo; the writings are
counted where the exports are dispatched."""

from __future__ import annotations

import csv
import io
import json
import uuid

import pytest
from django.urls import get_resolver, reverse

from evalhub.competitions.models import Submission, Team
from evalhub.competitions.services.boards import kept_exports
from tests.api.test_token_scopes import make_token
from tests.competitions.runs import hide_as_its_team

pytestmark = pytest.mark.django_db


@pytest.fixture
def written(monkeypatch):  # noqa: ANN001, ANN201
    """The kinds of export written, in order."""
    calls: list[str] = []
    # The views register their own kinds when the URLconf loads (the API's
    # leaderboard): load it, as the first request would.
    get_resolver().url_patterns  # noqa: B018
    for kind, writer in list(kept_exports.WRITERS.items()):

        def counting(*, _kind=kind, _writer=writer, **kwargs):  # noqa: ANN001, ANN003, ANN202
            calls.append(_kind)
            return _writer(**kwargs)

        monkeypatch.setitem(kept_exports.WRITERS, kind, counting)
    return calls


def _urls(task, phase) -> dict[str, str]:  # noqa: ANN001
    urls = {
        fmt: reverse("api:leaderboard-export", args=[task.slug, phase.slug, fmt])
        for fmt in ("csv", "json", "tex")
    }
    urls["board.json"] = reverse(
        "competitions:leaderboard-json", args=[task.slug, phase.slug]
    )
    urls["api.json"] = reverse(
        "api:api-v1:leaderboard-detail", kwargs={"slug": task.slug, "phase": phase.slug}
    )
    return urls


def _api_runs(text: str) -> set[int]:
    """The run ids of the API's leaderboard."""
    return {
        row["run"] for board in json.loads(text)["test_sets"] for row in board["rows"]
    }


def _runs(text: str) -> set[str]:
    """The run ids of an exported CSV."""
    return {row["run"] for row in csv.DictReader(io.StringIO(text))}


def _texts(client, urls: dict[str, str], token: str = "") -> dict[str, str]:  # noqa: ANN001
    """Each export as ``client``'s session, and ``token`` (the API reads tokens
    only), may see it."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    out = {}
    for kind, url in urls.items():
        answer = client.get(url, headers=headers)
        assert answer.status_code == 200, url
        out[kind] = answer.content.decode()
    return out


def test_each_audience_has_the_exports_written_once_and_a_change_at_once(
    client, scored_alignment, written, organiser, django_user_model
):  # noqa: ANN001
    task, phase = scored_alignment
    urls = _urls(task, phase)
    # The board's leaderboard.json is the export's JSON: one text, written once.
    kinds = [kind for kind in urls if kind != "board.json"]
    visitor = _texts(client, urls)
    assert visitor["board.json"] == visitor["json"]
    assert _texts(client, urls) == visitor
    assert written == kinds  # once each, handed out the second time
    run = (
        Submission.objects.filter(phase=phase, status=Submission.Status.SCORED)
        .order_by("pk")
        .first()
    )
    team = Team.objects.get(pk=run.team_id)
    member = django_user_model.objects.create_user(f"m-{uuid.uuid4().hex[:6]}")
    team.members.add(member)
    client.force_login(member)  # a participant reads what the public reads
    assert _texts(client, urls) == visitor
    assert written == kinds
    task.organisers.add(organiser)
    # The API reads tokens only; a token organises the tasks it names.
    token = make_token(client, organiser, scope="organise", tasks=[task.pk])
    client.force_login(organiser)
    mine = _texts(client, urls, token)
    assert written == kinds * 2  # the organisers' own, with the teams' choices
    assert '"hidden": false' in mine["json"]
    assert mine["board.json"] == mine["json"]
    assert '"hidden"' not in visitor["json"]
    assert '"hidden": false' in mine["api.json"]
    assert '"hidden"' not in visitor["api.json"]
    hide_as_its_team(client, run, member)
    after = _texts(client, urls)
    assert str(run.pk) not in _runs(after["csv"])
    assert str(run.pk) in _runs(visitor["csv"])
    assert f'"run": {run.pk},' not in after["json"]
    assert f'"run": {run.pk},' in visitor["json"]
    assert run.pk not in _api_runs(after["api.json"])
    assert run.pk in _api_runs(visitor["api.json"])
    client.force_login(organiser)
    theirs = _texts(client, urls, token)
    assert f'"run": {run.pk},' in theirs["json"]
    assert run.pk in _api_runs(theirs["api.json"])
    assert written == kinds * 4
