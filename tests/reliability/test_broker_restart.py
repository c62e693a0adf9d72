"""Redis (the broker) dies while runs are queued and comes back empty: the sweeper
enqueues the lost jobs again and every submission still ends in a final state."""

from __future__ import annotations

import pytest

from evalhub.competitions.models import Evaluation, Submission
from evalhub.competitions.services.runs import submit
from tests.reliability.conftest import wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_runs_queued_when_redis_dies_are_all_scored_after_restart(
    cluster, broker, probe_phase, participant, team, demo_run
):
    def send(name: str) -> Submission:
        return submit.submit_run(
            phase=probe_phase,
            user=participant,
            filename=name,
            data=demo_run,
            method_name=name,
        )

    name = cluster.worker("w", beat=True)  # the sweeper in the worker's beat
    cluster.wait_ready(name)
    subs = [send("slow-2.tsv") for _ in range(4)]
    wait_for(
        lambda: Submission.objects.filter(status="scoring").exists(),
        "the first run to be claimed",
    )
    broker.kill()  # no persistence: the queued messages are gone
    # A run submitted while the broker is down is stored and the participant gets no
    # error; the sweeper sends its job once the broker is back.
    send("ok.tsv")
    during = Submission.objects.get(original_name="ok.tsv")
    assert during.status == "queued"
    subs.append(during)
    broker.start()  # same port, empty

    def all_final() -> bool:
        for key, proc in cluster.procs.items():
            assert proc.poll() is None, f"{key} died:\n{cluster.log(key)[-3000:]}"
        return not Submission.objects.exclude(
            status__in=Submission.TERMINAL_STATES
        ).exists()

    wait_for(all_final, "every run to reach a final state", timeout=120)
    for sub in subs:
        sub.refresh_from_db()
        assert sub.status == "scored", (sub.pk, sub.status, sub.failure_message)
        assert Evaluation.objects.filter(submission=sub).count() == 1
