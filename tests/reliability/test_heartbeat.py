"""The heartbeat and the sweeper without worker processes: stale heartbeats are
requeued, fresh ones are not, and a worker presumed dead cannot overwrite the row's
new owner."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from evalhub.competitions import jobs
from evalhub.competitions.models import Evaluation, Submission
from evalhub.competitions.services.runs import lifecycle, scoring, stale, sweeper

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def sent(monkeypatch):  # noqa: ANN001, ANN201
    """Jobs sent by submit and the sweeper, kept off the shared broker (the broker
    itself is exercised in the worker tests)."""
    out: list[int] = []
    monkeypatch.setattr(jobs.score_submission, "delay", out.append)
    return out


def test_claim_records_worker_and_heartbeat(submit_run, demo_run, sent):
    sub = submit_run(demo_run)
    assert lifecycle.claim(sub.pk, "node-a@host:12:abc")
    assert not lifecycle.claim(sub.pk, "node-b@host:13:def")
    row = Submission.objects.get(pk=sub.pk)
    assert row.worker == "node-a@host:12:abc" and row.heartbeat_at is not None
    assert row.attempts == 1 and row.status == "scoring"


def test_sweeper_requeues_only_stale_heartbeats(submit_run, demo_run, settings, sent):
    settings.SCORING_HEARTBEAT_STALE_AFTER = 30
    sub = submit_run(demo_run)
    sent.clear()
    lifecycle.claim(sub.pk, "a:1:x")
    beat = Submission.objects.get(pk=sub.pk).heartbeat_at
    assert sweeper.sweep(now=beat + timedelta(seconds=29))["requeued"] == 0
    assert sweeper.sweep(now=beat + timedelta(seconds=31))["requeued"] == 1
    row = Submission.objects.get(pk=sub.pk)
    assert (row.status, row.worker, row.heartbeat_at) == ("queued", "", None)
    assert sent == [sub.pk]


def test_heartbeat_thread_refreshes_the_row(submit_run, demo_run, settings, sent):
    settings.SCORING_HEARTBEAT_INTERVAL = 1
    sub = submit_run(demo_run)
    lifecycle.claim(sub.pk, "a:1:x")
    first = Submission.objects.get(pk=sub.pk).heartbeat_at
    beat = scoring._Heartbeat(sub.pk, "a:1:x")
    beat.start()
    try:
        deadline = time.monotonic() + 15
        while Submission.objects.get(pk=sub.pk).heartbeat_at == first:
            assert time.monotonic() < deadline, "no heartbeat within 15 s"
            time.sleep(0.2)
    finally:
        beat.stop()
    assert not beat.thread.is_alive()


def test_worker_presumed_dead_cannot_overwrite_the_new_owner(
    submit_run, demo_run, settings, sent
):
    sub = submit_run(demo_run)
    lifecycle.claim(sub.pk, "a:1:x")
    later = timezone.now() + timedelta(
        seconds=settings.SCORING_HEARTBEAT_STALE_AFTER + 5
    )
    assert sweeper.sweep(now=later)["requeued"] == 1
    assert lifecycle.claim(sub.pk, "b:2:y")
    # The old worker wakes up and finishes: its results and state change are dropped.
    assert scoring._score_claimed(sub.pk, "a:1:x") == "skipped"
    assert (
        lifecycle.finish(
            sub.pk,
            "a:1:x",
            phase_id=sub.phase_id,
            read=stale.data_versions(sub.phase_id),
            failure=("scorer", "late"),
        )
        == "skipped"
    )
    row = Submission.objects.get(pk=sub.pk)
    assert (row.status, row.worker) == ("scoring", "b:2:y")
    assert not Evaluation.objects.filter(submission=sub).exists()
    # The new owner completes normally.
    assert scoring._score_claimed(sub.pk, "b:2:y") == "scored"
    assert Evaluation.objects.filter(submission=sub).count() == 1
