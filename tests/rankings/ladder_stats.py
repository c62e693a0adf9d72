"""Three scored runs on the BUCC demo task with the Ladder on and the statistics
refreshed: two of the participant's team ("first", then the clearly better
"second"), one of another team ("other"). ``stats`` is the function-scoped fixture
(modules import it: they read the boards, the interval chart and the statistics,
not the runs' own figures, which it leaves pending); tests/rankings/test_leaks.py
builds the same, the runs' figures drawn, once for its module."""

from __future__ import annotations

from typing import Any

import pytest

from evalhub.competitions.services import teams
from evalhub.rankings import jobs
from evalhub.rankings.models import PhaseRanking
from tests.rankings.helpers import scored


def build(
    *,
    task: Any,  # noqa: ANN401
    phase: Any,  # noqa: ANN401
    test_sets: list[Any],
    demo: Any,  # noqa: ANN401
    participant: Any,  # noqa: ANN401
    outsider: Any,  # noqa: ANN401
    figures: bool = True,
) -> list[Any]:
    PhaseRanking.objects.create(phase=phase, ladder=True)
    runs = {method: files["test"] for _, method, files in demo.runs}
    subs = [
        scored(phase, participant, runs["roots only"], "first", figures=figures),
        scored(phase, participant, runs["dictionary"], "second", figures=figures),
    ]
    teams.register(task=task, user=outsider, new_team_name="Other")
    subs.append(scored(phase, outsider, runs["random"], "other", figures=figures))
    for ts in test_sets:
        assert jobs.refresh_statistics(ts.pk) == "refreshed"
    return subs


@pytest.fixture
def stats(
    task, phase, test_set, private_test_set, bucc_demo, participant, team, outsider
):  # noqa: ANN001, ANN201
    return build(
        task=task,
        phase=phase,
        test_sets=[test_set, private_test_set],
        demo=bucc_demo,
        participant=participant,
        outsider=outsider,
        figures=False,
    )
