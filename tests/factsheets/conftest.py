"""Fixtures of the fact-sheet tests: a task's questions, and runs with stored
scores (no scorer) of the participant's team and another team."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from evalhub.factsheets.models import Question
from tests.competitions.runs import stored_run


@pytest.fixture
def questions(task):  # noqa: ANN001, ANN201
    """external-data (yes/no, required, on the board), approach (list, required),
    params (number), code (URL), notes (text)."""
    specs = [
        dict(key="external-data", label="External data used?", kind="yes_no",
             required=True, on_board=True),
        dict(key="approach", label="Approach", kind="choice",
             choices=["neural", "statistical"], required=True),
        dict(key="params", label="Parameters", kind="number"),
        dict(key="code", label="Code", kind="url"),
        dict(key="notes", label="Notes", kind="text"),
    ]  # fmt: skip
    return {
        spec["key"]: Question.objects.create(task=task, order=order, **spec)
        for order, spec in enumerate(specs)
    }


@pytest.fixture
def runs(phase, test_set, private_test_set, team, participant, other_team, outsider):  # noqa: ANN001, ANN201
    """Alpha: a public run of "shown-m" and a hidden run of "secret-m"; the other
    team: a public run of "theirs"."""
    shown = stored_run(
        phase, team, participant, {test_set: 0.8, private_test_set: 0.7},
        minutes_ago=30, method="shown-m",
    )  # fmt: skip
    secret = stored_run(
        phase, team, participant, {test_set: 0.9, private_test_set: 0.6},
        minutes_ago=20, method="secret-m",
    )  # fmt: skip
    secret.hidden = True
    secret.save(update_fields=["hidden"])
    theirs = stored_run(
        phase, other_team, outsider, {test_set: 0.5, private_test_set: 0.4},
        minutes_ago=10, method="theirs",
    )  # fmt: skip
    return {"shown": shown, "secret": secret, "theirs": theirs}


def close(phase) -> None:  # noqa: ANN001
    phase.opens_at = timezone.now() - timedelta(days=3)
    phase.closes_at = timezone.now() - timedelta(minutes=1)
    phase.save()
