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
