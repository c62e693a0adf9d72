"""A board of many teams, seeded cheaply (issue 31, "big boards"): teams
registered on the task, one scored run each with a score per metric on every
test set of the phase, written in a few bulk inserts instead of a thousand
scorings. What is measured or tested (the leaderboard page) reads them through
the production path; the runs carry no per-item outcomes, so the statistics
worker gives them no interval or band. Used by the tests and by
``bench/traffic.py --board-runs``."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from evalhub.competitions.models import (
    Evaluation,
    Phase,
    Registration,
    Score,
    Submission,
    Team,
)
from evalhub.competitions.services.boards import boardcache


def seed_board(*, phase: Phase, teams: int, prefix: str = "Seeded") -> list[Team]:
    """``teams`` new teams ("<prefix> 0001", ...), each with one scored run; the
    n-th team's scores are (teams - n) / (teams + 1) on every metric (every
    value distinct and finite, the first team best). Returns the teams in
    that order."""
    task = phase.task
    task_type = task.type
    test_sets = list(phase.test_sets.all())
    now = timezone.now()
    with transaction.atomic():
        made = Team.objects.bulk_create(
            [Team(name=f"{prefix} {i:04d}") for i in range(1, teams + 1)]
        )
        Registration.objects.bulk_create(
            [
                Registration(task=task, team=t, status=Registration.Status.APPROVED)
                for t in made
            ]
        )
        runs = Submission.objects.bulk_create(
            [
                Submission(
                    phase=phase,
                    team=t,
                    original_name="run.tsv",
                    sha256=f"{i:064x}",
                    method_name=f"method {i}",
                    status=Submission.Status.SCORED,
                    scorer_version=task_type.version,
                    created_at=now,
                    finished_at=now,
                )
                for i, t in enumerate(made)
            ]
        )
        Evaluation.objects.bulk_create(
            [
                Evaluation(
                    submission=run,
                    test_set=ts,
                    scorer_version=task_type.version,
                    gold_version=ts.gold_version,
                )
                for run in runs
                for ts in test_sets
            ]
        )
        Score.objects.bulk_create(
            [
                Score(
                    submission=run,
                    test_set=ts,
                    metric=metric.key,
                    value=(teams - i) / (teams + 1),
                    scorer_version=task_type.version,
                )
                for i, run in enumerate(runs)
                for ts in test_sets
                for metric in task_type.metrics
            ],
            batch_size=5000,
        )
        for ts in test_sets:
            boardcache.invalidate(test_set_id=ts.pk, refresh_statistics=False)
    return made
