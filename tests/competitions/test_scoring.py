from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from evalhub.competitions import jobs
from evalhub.competitions.models import Artefact, Evaluation, Score, Submission
from evalhub.competitions.services.runs import lifecycle, sweeper
from tasks import registry
from tests import run_figures

pytestmark = pytest.mark.django_db


def test_score_job_stores_scores_plots_and_marks_scored(submit_run, demo_run, test_set):
    sub = submit_run(demo_run)
    assert jobs.score_submission(sub.pk) == "scored"
    sub.refresh_from_db()
    assert sub.status == Submission.Status.SCORED
    assert sub.scorer_version == registry.get("bilingual_term_alignment").version
    ap = Score.objects.get(submission=sub, test_set=test_set, metric="ap").value
    # The same number the offline scorer gives for the same files.
    task_type = registry.get("bilingual_term_alignment")
    demo = task_type.demo(seed=0)
    settings = task_type.parse_settings(demo.settings)
    inputs = task_type.parse_inputs(demo.test_sets[0].inputs, settings)
    gold = task_type.parse_gold(demo.test_sets[0].gold, inputs, settings)
    report = task_type.score(
        task_type.parse_run(demo_run, "r", inputs, settings), gold, inputs, settings
    )
    assert ap == pytest.approx(report.metrics["ap"], abs=1e-12)
    assert 0 < ap <= 1
    # The figures are drawn after the score, by the job it sends after its commit.
    assert Evaluation.objects.get(submission=sub).figures == "pending"
    assert not Artefact.objects.filter(evaluation__submission=sub).exists()
    assert run_figures.draw_pending(sub) == 1
    assert Evaluation.objects.get(submission=sub).figures == "drawn"
    assert Artefact.objects.filter(evaluation__submission=sub).count() >= 2
    assert all(
        a.svg.read().lstrip().startswith(b"<?xml") for a in Artefact.objects.all()
    )


def test_running_the_job_twice_is_a_noop(submit_run, demo_run):
    sub = submit_run(demo_run)
    jobs.score_submission(sub.pk)
    before = list(Score.objects.order_by("pk").values_list("pk", "value"))
    assert jobs.score_submission(sub.pk) == "skipped"
    assert list(Score.objects.order_by("pk").values_list("pk", "value")) == before
    assert Evaluation.objects.count() == 1


def test_only_one_claim_wins(submit_run, demo_run):
    sub = submit_run(demo_run)
    assert lifecycle.claim(sub.pk, "t") is True
    assert lifecycle.claim(sub.pk, "t") is False


def test_rescore_is_idempotent_and_keeps_one_row_per_metric(submit_run, demo_run):
    sub = submit_run(demo_run)
    jobs.score_submission(sub.pk)
    n_scores = Score.objects.count()
    assert lifecycle.rescore(submission_ids=[sub.pk]) == 1
    assert jobs.score_submission(sub.pk) == "scored"
    assert Score.objects.count() == n_scores


def test_scorer_crash_fails_readably_without_quoting_the_exception(
    submit_run, demo_run, monkeypatch, caplog
):
    task_type = registry.get("bilingual_term_alignment")

    secret = "-".join(["secret", "gold", "term"])

    def boom(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise KeyError(secret)

    monkeypatch.setattr(type(task_type), "score", boom)
    sub = submit_run(demo_run)
    assert jobs.score_submission(sub.pk) == "failed"
    sub.refresh_from_db()
    assert sub.status == Submission.Status.FAILED
    assert sub.failure_category == Submission.Failure.SCORER
    assert "secret-gold-term" not in sub.failure_message
    assert "secret-gold-term" not in caplog.text
    assert "KeyError" in caplog.text


def test_timeout_is_a_readable_failure(submit_run, demo_run, monkeypatch):
    from celery.exceptions import SoftTimeLimitExceeded

    task_type = registry.get("bilingual_term_alignment")

    def slow(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(type(task_type), "score", slow)
    sub = submit_run(demo_run)
    jobs.score_submission(sub.pk)
    sub.refresh_from_db()
    assert (sub.status, sub.failure_category) == ("failed", "timeout")


def test_sweeper_requeues_then_fails_stuck_rows(
    submit_run, demo_run, settings, monkeypatch
):
    sub = submit_run(demo_run)
    assert lifecycle.claim(sub.pk, "t")
    long_ago = timezone.now() - timedelta(seconds=settings.SCORING_TIME_LIMIT + 120)
    Submission.objects.filter(pk=sub.pk).update(started_at=long_ago)
    sent = []
    monkeypatch.setattr(jobs.score_submission, "delay", sent.append)
    assert sweeper.sweep()["requeued"] == 1
    assert sent == [sub.pk]
    assert Submission.objects.get(pk=sub.pk).status == Submission.Status.QUEUED
    # Last attempt lost as well: the row ends failed, never stuck.
    Submission.objects.filter(pk=sub.pk).update(
        status=Submission.Status.SCORING,
        started_at=long_ago,
        attempts=settings.SCORING_MAX_ATTEMPTS,
    )
    assert sweeper.sweep()["failed"] == 1
    row = Submission.objects.get(pk=sub.pk)
    assert (
        row.status == Submission.Status.FAILED
        and row.failure_category == "infrastructure"
    )


def test_sweeper_reenqueues_queued_rows_whose_message_was_lost(
    submit_run, demo_run, settings, monkeypatch
):
    sub = submit_run(demo_run)
    Submission.objects.filter(pk=sub.pk).update(
        enqueued_at=timezone.now()
        - timedelta(seconds=settings.QUEUED_REENQUEUE_AFTER + 5)
    )
    sent = []
    monkeypatch.setattr(jobs.score_submission, "delay", sent.append)
    assert sweeper.sweep()["reenqueued"] == 1
    assert sweeper.sweep()["reenqueued"] == 0  # not again until the delay passes
    assert sent == [sub.pk]


def test_a_refresh_asked_for_a_test_set_deleted_since_does_nothing(
    submit_run, demo_run, test_set
):
    """The job queued for a test set that was deleted before it ran (a phase set up
    again, a task deleted) ends quietly instead of failing in the worker."""
    sub = submit_run(demo_run)
    jobs.score_submission(sub.pk)
    pk = test_set.pk
    test_set.delete()
    assert jobs.refresh_analyses.apply(args=[pk]).get() == []


def test_refresh_analyses_builds_comparison_plots_and_bins(
    submit_run, demo_run, test_set
):
    from evalhub.competitions.models import TaskArtefact
    from evalhub.competitions.services.boards import analyses

    sub = submit_run(demo_run)
    jobs.score_submission(sub.pk)
    keys = analyses.refresh(test_set_id=test_set.pk)
    assert "analysis" in keys and any(k.startswith("compare-") for k in keys)
    bins = TaskArtefact.objects.get(test_set=test_set, key="analysis").public_data
    assert bins  # bin sizes are public
    assert analyses.refresh(test_set_id=test_set.pk) == keys  # idempotent
