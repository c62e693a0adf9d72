# ruff: noqa: F811  (the stranger and revoked fixtures are imported, then requested by name)
"""The organiser API's ranking settings of a phase: organisers read and change them
(every problem reported, nothing stored); everyone else is refused. The rest of the
organiser API: ``test_organiser_api.py``."""

from __future__ import annotations

import json

import pytest

from tests.api.fixtures import (  # noqa: F401  (fixtures)
    REFUSED,
    TASK,
    auth,
    refusals,
    revoked,
    stranger,
)

pytestmark = pytest.mark.django_db

RANKING = f"{TASK}/phases/evaluation/settings/ranking"


def test_organisers_read_and_change_the_ranking_settings(
    client, tokens, stranger, revoked, phase, test_set, team
):
    from evalhub.rankings.models import PhaseRanking

    mine = auth(tokens["organiser"])
    read = client.get(RANKING, **mine)
    assert read.status_code == 200
    assert read.json()["ladder"] is False
    changed = client.put(
        RANKING,
        data=json.dumps({"ladder": True, "ladder_margin": 1.5}),
        content_type="application/json",
        **mine,
    )
    assert changed.status_code == 200, changed.content
    assert changed.json()["ladder"] is True and changed.json()["ladder_margin"] == 1.5
    saved = PhaseRanking.objects.get(phase=phase)
    assert (saved.ladder, saved.ladder_margin) == (True, 1.5)
    # Every problem, nothing stored: the rule of the console's page and the bundles.
    refused = client.put(
        RANKING,
        data=json.dumps({"alpha": 2, "seed": "x", "colour": 1}),
        content_type="application/json",
        **mine,
    )
    assert refused.status_code == 422
    detail = refused.json()["detail"]
    assert "seed: must be a whole number" in detail and "'colour'" in detail
    refused = client.put(
        RANKING, data=json.dumps({"alpha": 2}), content_type="application/json", **mine
    )
    assert refused.status_code == 422 and "alpha" in refused.json()["detail"]
    assert PhaseRanking.objects.get(phase=phase).alpha == saved.alpha
    assert client.get(f"{TASK}/phases/evaluation/settings/x", **mine).status_code == 404
    assert refusals(client, "get", RANKING, tokens, stranger, revoked) == REFUSED
    assert (
        refusals(
            client,
            "put",
            RANKING,
            tokens,
            stranger,
            revoked,
            data="{}",
            content_type="application/json",
        )
        == REFUSED
    )


@pytest.mark.django_db(transaction=True)
def test_evalhub_ranking_show_and_set(live_server, task, phase, test_set, organiser):
    """``evalhub ranking show`` / ``set`` against a live server with an organise
    token: the choice is stored, every problem printed, nothing stored then."""
    import os
    import subprocess
    import sys

    from evalhub.api.services import tokens as token_service
    from evalhub.rankings.models import PhaseRanking
    from tests.paths import REPO_ROOT

    token = token_service.create(
        user=organiser, name="cli", scope="organise", tasks=[task]
    )
    env = {**os.environ, "EVALHUB_TOKEN": token.secret}
    where = ["--url", live_server.url, "--task", task.slug, "--phase", phase.slug]

    def evalhub(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "evalhub.cli", "ranking", *args],
            cwd=REPO_ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    shown = evalhub("show", *where)
    assert shown.returncode == 0, shown.stderr
    assert 'metric: ""' in shown.stdout and "overall: mean" in shown.stdout
    changed = evalhub(
        "set", *where, "metric=p_at_100", "columns=p_at_100,ap", "overall=average_rank"
    )
    assert changed.returncode == 0, changed.stderr
    assert "metric: p_at_100" in changed.stdout
    assert "columns: p_at_100,ap" in changed.stdout
    row = PhaseRanking.objects.get(phase=phase)
    assert (row.metric, row.columns, row.overall) == (
        "p_at_100",
        ["p_at_100", "ap"],
        "average_rank",
    )
    as_json = evalhub("show", *where, "--json")
    assert json.loads(as_json.stdout)["metric"] == "p_at_100"
    refused = evalhub("set", *where, "metric=map_source", "seed=x")
    assert refused.returncode == 2
    assert "map_source" in refused.stderr or "seed" in refused.stderr
    assert PhaseRanking.objects.get(phase=phase).metric == "p_at_100"
