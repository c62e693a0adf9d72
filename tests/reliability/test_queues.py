"""Scale-out: scoring runs on its own queue. A worker started with ``-Q scoring``
(the heavy jobs) and one with ``-Q default`` (statistics/analyses refreshes, the
sweeper), under different node names, each consume only their queue; every run is
scored exactly once and the coalesced refreshes still run after the last run."""

from __future__ import annotations

import re

import pytest

from evalhub import worker_queues
from evalhub.competitions.models import Evaluation, Submission
from evalhub.competitions.services.runs import submit
from evalhub.rankings.models import TestSetStatistics
from tests.reliability.conftest import wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _jobs(log: str, name: str) -> int:
    return len(re.findall(rf"jobs\.{name}\[[^\]]+\] succeeded", log))


def test_scoring_and_default_queues_on_separate_workers(
    cluster, probe_phase, participant, team, demo_run, test_set
):
    scorer = cluster.worker(
        "scorer", queues=worker_queues.argument("scoring"), EVALHUB_LOG_LEVEL="INFO"
    )
    # Beat (it sends the refreshes that are due) runs in the default worker.
    other = cluster.worker(
        "other",
        queues=worker_queues.argument("default"),
        beat=True,
        EVALHUB_LOG_LEVEL="INFO",
    )
    cluster.wait_ready(scorer, other)
    subs = [
        submit.submit_run(
            phase=probe_phase,
            user=participant,
            filename="slow-0.5.tsv",
            data=demo_run,
            method_name=f"run-{i}",
        )
        for i in range(6)
    ]

    def all_final() -> bool:
        return Submission.objects.filter(
            pk__in=[s.pk for s in subs], status=Submission.Status.SCORED
        ).count() == len(subs)

    wait_for(all_final, "every run scored")
    for sub in subs:
        sub.refresh_from_db()
        assert sub.worker.split(":")[0] == scorer and sub.attempts == 1
        assert Evaluation.objects.filter(submission=sub).count() == 1

    def refreshed() -> bool:
        row = TestSetStatistics.objects.filter(test_set=test_set).first()
        return bool(row and row.signature)

    wait_for(refreshed, "the statistics refresh on the default worker")
    # Celery logs "succeeded" after the job has returned, a moment after the run's
    # status is saved: wait for the last line rather than read the log too early.
    wait_for(
        lambda: _jobs(cluster.log("scorer"), "score_submission") >= len(subs),
        "the scorer's log to record every scoring job",
    )
    wait_for(
        lambda: _jobs(cluster.log("other"), "refresh_statistics") >= 1,
        "the default worker's log to record the statistics refresh",
    )
    scorer_log, other_log = cluster.log("scorer"), cluster.log("other")
    assert _jobs(scorer_log, "refresh_statistics") == 0
    assert _jobs(scorer_log, "refresh_analyses") == 0
    assert _jobs(other_log, "score_submission") == 0
    # Coalesced: six runs, far fewer refreshes (at least one of each kind).
    assert 1 <= _jobs(other_log, "refresh_statistics") < len(subs)
