"""Worker faults with real worker processes on a private broker: a worker SIGKILLed
mid-scoring, scorers that raise, hang or exhaust memory, and two workers with
different queues sharing the work without double scoring."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest

from evalhub import worker_queues
from evalhub.celery import app
from evalhub.competitions import jobs
from evalhub.competitions.models import Evaluation, Submission
from evalhub.competitions.services.runs import submit
from tests.reliability import probe
from tests.reliability.conftest import FAST_ENV, wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _submit(phase, user, data: bytes, filename: str) -> Submission:  # noqa: ANN001
    return submit.submit_run(
        phase=phase, user=user, filename=filename, data=data, method_name=filename
    )


def _final(sub: Submission) -> Submission | None:
    sub.refresh_from_db()
    return sub if sub.is_terminal else None


def test_killed_worker_run_is_scored_once_by_the_other_worker(
    cluster, probe_phase, participant, team, demo_run
):
    # "a" takes every queue; "b" (beat in it: the sweeper) takes the default queue
    # until "a" has claimed the run, then the scoring queues too, so "a" is the
    # one holding the run when it is killed.
    victim = cluster.worker("a")
    survivor = cluster.worker("b", queues=worker_queues.argument("default"), beat=True)
    cluster.wait_ready(victim, survivor)
    sub = _submit(probe_phase, participant, demo_run, "slow-8.tsv")

    def claimed() -> str:
        sub.refresh_from_db()
        return sub.worker if sub.status == "scoring" else ""

    owner = wait_for(claimed, "a worker to claim the run").split(":")[0]
    assert owner == victim
    for queue in worker_queues.WORKERS["scoring"]:
        app.control.add_consumer(queue, destination=[survivor], reply=True)
    time.sleep(1.5)  # let the victim heartbeat at least once (not a synchronisation)
    cluster.kill("a")
    sub.refresh_from_db()
    # Still the victim's, as it left it: its last heartbeat is the row's.
    assert sub.status == "scoring" and sub.worker.startswith(owner + ":")
    last_heartbeat, victims_token = sub.heartbeat_at, sub.worker

    done = wait_for(lambda: _final(sub), "the run to be rescored")
    assert done.status == "scored", done.failure_message
    # Claimed twice: once by the victim, once by the survivor, and scored once.
    assert done.attempts == 2
    assert done.worker.startswith(survivor + ":")
    assert Evaluation.objects.filter(submission=done).count() == 1
    # In this order: the victim's heartbeat went stale, a sweeper pass (in the
    # survivor, beat's job) re-queued the run, once, then the survivor claimed it.
    stale = timedelta(seconds=int(FAST_ENV["EVALHUB_SCORING_HEARTBEAT_STALE_AFTER"]))
    assert done.started_at >= last_heartbeat + stale
    survivors_log = cluster.log(survivor.split("-")[0])
    requeued = f"submission {sub.pk} requeued: worker {victims_token} lost"
    assert survivors_log.count(requeued) == 1, survivors_log[-3000:]
    assert cluster.procs[survivor.split("-")[0]].poll() is None


@pytest.fixture
def short_time_limit(monkeypatch):  # noqa: ANN001, ANN201
    """Celery puts the time limits in each message when it is sent, so the publishing
    process (this one) must agree with the worker's EVALHUB_SCORING_SOFT_TIME_LIMIT."""
    # The hanging run holds the worker (one job at a time) until this limit: the
    # test's wall time. 10 s: the scoring job stores the score and nothing more
    # (the run's figures are a job of their own), 0.2 s even in a worker child
    # started afresh after the crash runs (worker log, 2 cores); the limit was 30 s
    # when that job drew the figures too (more than 20 s seen in CI then).
    task = jobs.score_submission
    monkeypatch.setattr(task, "soft_time_limit", 10)
    monkeypatch.setattr(task, "time_limit", 40)
    monkeypatch.setattr(task, "_exec_options", None)
    yield 10
    task._exec_options = None  # noqa: SLF001 - rebuilt from the restored limits


def test_raising_hanging_and_memory_hungry_scorers_fail_readably(
    cluster, probe_phase, participant, team, demo_run, short_time_limit
):
    name = cluster.worker(
        "w",
        beat=True,
        EVALHUB_SCORING_SOFT_TIME_LIMIT=str(short_time_limit),
        EVALHUB_SCORING_MEMORY_LIMIT_MB="4096",
        EVALHUB_SCORING_MAX_ATTEMPTS="3",
    )
    cluster.wait_ready(name)
    pid = cluster.procs["w"].pid
    runs = {
        mode: _submit(probe_phase, participant, demo_run, f"{mode}.tsv")
        for mode in ("ok", "raise", "hang", "memory", "crash", "ok-again")
    }
    for mode, sub in runs.items():
        wait_for(lambda sub=sub: _final(sub), f"the {mode} run to finish")
    got = {m: (s.status, s.failure_category) for m, s in runs.items()}
    assert got == {
        "raise": ("failed", "scorer"),
        "hang": ("failed", "timeout"),
        "memory": ("failed", "scorer"),
        "crash": ("failed", "infrastructure"),
        "ok": ("scored", ""),
        "ok-again": ("scored", ""),
    }
    assert "out of memory" in runs["memory"].failure_message
    assert f"longer than {short_time_limit} s" in runs["hang"].failure_message
    assert all(s.attempts == 1 for m, s in runs.items() if m != "crash")
    # A scorer that kills its process each time is retried, then given up on.
    assert runs["crash"].attempts == 3
    assert "did not finish after 3 attempts" in runs["crash"].failure_message
    # The worker survived all three and its logs never quote the scorer's exception
    # text (which may quote gold).
    assert cluster.procs["w"].poll() is None and cluster.procs["w"].pid == pid
    log = cluster.log("w")
    assert "RuntimeError" in log and probe.SECRET not in log
    for sub in runs.values():
        assert probe.SECRET not in sub.failure_message


def test_two_workers_on_different_queues_share_runs_without_double_scoring(
    cluster, probe_phase, participant, team, demo_run
):
    # Worker "a" takes only scoring jobs; "b" also runs the sweeper (default queue)
    # and beat. The sweeper re-enqueues queued rows every 3 s, so duplicate messages
    # abound.
    a = cluster.worker("a", queues=worker_queues.argument("scoring"))
    b = cluster.worker("b", queues=worker_queues.argument("all"), beat=True)
    cluster.wait_ready(a, b)
    subs = [_submit(probe_phase, participant, demo_run, "slow-1.tsv") for _ in range(8)]
    for sub in subs:
        wait_for(lambda sub=sub: _final(sub), f"run {sub.pk}")
    assert {s.status for s in subs} == {"scored"}
    assert all(s.attempts == 1 for s in subs)
    for sub in subs:
        assert Evaluation.objects.filter(submission=sub).count() == 1
    owners = {s.worker.split(":")[0] for s in subs}
    assert owners == {a, b}
    # Celery logs "succeeded" only after the job returns, a moment after the status
    # is saved: wait for the lines instead of reading the logs too early.
    wait_for(
        lambda: (
            (cluster.log("a") + cluster.log("b")).count("succeeded in") >= len(subs)
        ),
        "the workers' logs to record every job",
    )
