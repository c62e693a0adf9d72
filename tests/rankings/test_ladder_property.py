"""Property: whatever a team does — submit, hide, unhide, choose final runs — and
whatever the organisers do — replace gold, rescore, reveal — and whenever the
statistics worker runs, the public never sees a run's public-test-set score that the
Ladder has not released. The Ladder's releases are computed here independently,
from the submission history alone (``tasks.common.resampling.ladder`` over every
run of a team in submission order)."""

from __future__ import annotations

import pytest
from django.db import transaction
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from evalhub.competitions.models import Phase, Submission
from evalhub.competitions.services import teams as team_service
from evalhub.competitions.services.boards import boardcache
from evalhub.competitions.services.data import datasets, taskdata
from evalhub.competitions.services.runs import finals
from evalhub.rankings import jobs
from evalhub.rankings.models import PhaseRanking
from tasks.base import ScoreReport
from tasks.common import resampling as rs
from tests.rankings.helpers import rescored, scored
from tests.rankings.test_ladder_guarantees import _public_runs
from tests.rankings.test_statistics import _noisy

pytestmark = pytest.mark.django_db

OPS = st.one_of(
    st.tuples(st.just("submit"), st.integers(0, 3), st.integers(0, 1)),
    st.tuples(st.sampled_from(["hide", "unhide", "final"]), st.integers(0, 20)),
    st.tuples(st.sampled_from(["gold", "work", "refresh", "reveal"])),
)


@pytest.fixture
def world(task, phase, test_set, private_test_set, bucc_demo, participant, outsider):
    Phase.objects.filter(pk=phase.pk).update(daily_limit=1000, total_limit=1000)
    phase.refresh_from_db()
    ranking = PhaseRanking.objects.create(
        phase=phase, ladder=True, bootstrap_samples=100
    )
    team_service.register(task=task, user=participant, new_team_name="A")
    team_service.register(task=task, user=outsider, new_team_name="B")
    runs = {method: files["test"] for _, method, files in bucc_demo.runs}
    gold = bucc_demo.test_sets[0].gold["gold"]
    files = [runs["roots only"], _noisy(runs["roots only"], gold)]
    files += [runs["dictionary"], runs["random"]]
    ctx = taskdata.load_inputs(test_set)
    stats = []
    for data in files:
        [run] = ctx.task_type.parse_phase_run(data, "r.tsv", [ctx.inputs], ctx.settings)
        report = ctx.task_type.score(
            run, taskdata.load_gold(test_set), ctx.inputs, ctx.settings
        )
        stats.append(
            ctx.task_type.item_statistics(
                ScoreReport(metrics={}, payload=report.payload, detail=report.detail)
            )
        )
    return {
        "phase": phase,
        "test_set": test_set,
        "private": private_test_set,
        "users": [participant, outsider],
        "files": files,
        "stats": stats,
        "margin": ranking.ladder_margin,
        "gold": gold,
    }


def _ever_released(history: dict[int, list[tuple[str, rs.ItemStats]]], margin):  # noqa: ANN001, ANN202
    ever: set[int] = set()
    for runs in history.values():
        ever |= {int(s.shown) for s in rs.ladder(runs, margin=margin)}
    return ever


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=st.lists(OPS, min_size=1, max_size=7))
# The sequences behind the defects found on main, always tried: the overall ranking
# and the final-run fallback showing a withheld score, hiding releasing the next run,
# and a replaced gold restarting the Ladder.
@example(ops=[("submit", 0, 0), ("submit", 1, 0), ("refresh",), ("reveal",)])
@example(
    ops=[("submit", 0, 0), ("submit", 1, 0), ("refresh",), ("hide", 0), ("refresh",)]
)
@example(
    ops=[
        ("submit", 2, 0),
        ("gold",),
        ("submit", 0, 0),
        ("refresh",),
        ("work",),
        ("refresh",),
    ]
)
def test_the_public_never_sees_a_score_the_ladder_has_not_released(world, ops):
    phase, test_set = world["phase"], world["test_set"]
    # Nothing cached by an earlier example is read (each example's changes are
    # rolled back, the bump is not).
    boardcache.bump([test_set.pk, world["private"].pk])
    with transaction.atomic():
        history: dict[int, list[tuple[str, rs.ItemStats]]] = {}
        runs: list[Submission] = []
        for op in ops:
            if op[0] == "submit":
                user = world["users"][op[2]]
                sub = scored(phase, user, world["files"][op[1]], f"m{len(runs)}")
                runs.append(sub)
                history.setdefault(op[2], []).append(
                    (str(sub.pk), world["stats"][op[1]])
                )
            elif op[0] in ("hide", "unhide", "final") and runs:
                sub = runs[op[1] % len(runs)]
                sub.refresh_from_db()
                user = world["users"][0 if sub.team.name == "A" else 1]
                if op[0] == "final":
                    try:
                        finals.set_final(submission=sub, user=user, final=True)
                    except finals.ChoiceRefused:
                        pass
                else:
                    finals.set_hidden(submission=sub, user=user, hidden=op[0] == "hide")
            elif op[0] == "gold":
                datasets.store_file(
                    test_set=test_set, role="gold", filename="g.tsv", data=world["gold"]
                )
            elif op[0] == "work":
                # The rescoring worker, finishing the latest runs first.
                for sub in Submission.objects.filter(
                    phase=phase, status=Submission.Status.QUEUED
                ).order_by("-created_at", "-pk"):
                    rescored(sub)
            elif op[0] == "refresh":
                jobs.refresh_statistics(test_set.pk)
            elif op[0] == "reveal":
                datasets.reveal(test_set=world["private"])
            test_set.refresh_from_db()
            world["private"].refresh_from_db()
            public = _public_runs(phase, test_set)
            assert public <= _ever_released(history, world["margin"]), (ops, op)
        transaction.set_rollback(True)
