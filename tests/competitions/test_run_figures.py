"""A run's own figures are drawn by a job of their own, after its score (issue 47:
scoring keeps its pace while pages are served): the scoring job stores the score
and sends the figure job; the job draws from what the evaluation stored; a job lost
is sent again by the sweeper; a job of a run scored again meanwhile is a no-op; the
run page says the figures are being drawn, polls, and shows them once drawn."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from evalhub.competitions import jobs
from evalhub.competitions.models import Artefact, Evaluation, Submission
from evalhub.competitions.services.runs import lifecycle, sweeper
from tasks import registry
from tests import run_figures

pytestmark = pytest.mark.django_db

PENDING = "Figures are being drawn"


def _status(client, run):  # noqa: ANN001, ANN202
    return client.get(
        reverse("competitions:run-status", args=[run.pk]), HTTP_HX_REQUEST="true"
    )


def test_the_score_is_shown_before_the_figures_and_they_follow(
    client, participant, submit_run, demo_run, test_set
):  # noqa: ANN001
    run = submit_run(demo_run)
    assert jobs.score_submission(run.pk) == "scored"
    run.refresh_from_db()
    assert run.status == Submission.Status.SCORED
    evaluation = Evaluation.objects.get(submission=run)
    assert evaluation.figures == "pending" and evaluation.figures_key
    assert not Artefact.objects.exists()
    client.force_login(participant)
    page = client.get(reverse("competitions:run-detail", args=[run.pk])).content
    assert PENDING.encode() in page
    ap = next(m for m in registry.get("bilingual_term_alignment").metrics)
    value = run.scores.get(metric=ap.key).value
    assert ap.format(value).encode() in page  # the score is there
    status = _status(client, run)
    # The status part keeps polling (no reload yet) while the figures are drawn.
    assert PENDING.encode() in status.content and b"hx-get" in status.content
    assert "HX-Refresh" not in status

    assert run_figures.draw_pending(run) == 1
    evaluation.refresh_from_db()
    assert evaluation.figures == "drawn"
    plots = list(Artefact.objects.filter(evaluation=evaluation))
    assert len(plots) >= 2
    status = _status(client, run)
    assert status["HX-Refresh"] == "true" and b"hx-get" not in status.content
    page = client.get(reverse("competitions:run-detail", args=[run.pk])).content
    assert PENDING.encode() not in page
    for plot in plots:
        assert reverse("competitions:run-plot", args=[run.pk, plot.pk, "svg"]) in (
            page.decode()
        )


def test_the_figures_drawn_later_are_those_the_scorer_would_have_drawn(
    submit_run, demo_run, test_set
):  # noqa: ANN001
    """Everything ``plots`` reads is stored: the figures drawn from the stored
    evaluation are, byte for byte, those drawn from the scorer's own report."""
    run = submit_run(demo_run)
    assert jobs.score_submission(run.pk) == "scored"
    run_figures.draw_pending(run)
    task_type = registry.get("bilingual_term_alignment")
    demo = task_type.demo(seed=0)
    options = task_type.parse_settings(demo.settings)
    inputs = task_type.parse_inputs(demo.test_sets[0].inputs, options)
    gold = task_type.parse_gold(demo.test_sets[0].gold, inputs, options)
    report = task_type.score(
        task_type.parse_run(demo_run, "r", inputs, options), gold, inputs, options
    )
    expected = {p.key: p for p in task_type.plots(report, options)}
    stored = {a.key: a for a in Artefact.objects.filter(evaluation__submission=run)}
    assert set(stored) == set(expected)
    for key, plot in expected.items():
        assert stored[key].svg.read() == plot.svg
        assert stored[key].png.read() == plot.png


def test_a_job_runs_once_and_a_rescored_runs_old_job_is_a_noop(
    submit_run, demo_run, test_set
):  # noqa: ANN001
    run = submit_run(demo_run)
    assert jobs.score_submission(run.pk) == "scored"
    evaluation = Evaluation.objects.get(submission=run)
    old = evaluation.figures_key
    assert lifecycle.rescore(submission_ids=[run.pk]) == 1
    assert jobs.score_submission(run.pk) == "scored"
    evaluation.refresh_from_db()
    new = evaluation.figures_key
    assert new != old and evaluation.figures == "pending"
    assert jobs.draw_run_figures(evaluation.pk, old) == "skipped"
    assert not Artefact.objects.exists()
    assert jobs.draw_run_figures(evaluation.pk, new) == "drawn"
    assert jobs.draw_run_figures(evaluation.pk, new) == "skipped"  # never twice
    # A withdrawn evaluation: its job is a no-op too.
    evaluation.delete()
    assert jobs.draw_run_figures(evaluation.pk, new) == "skipped"


def test_a_lost_figure_job_is_sent_again_by_the_sweeper(submit_run, demo_run, test_set):  # noqa: ANN001
    """Inside the test's transaction the scoring job's figure job is never sent:
    a job lost. The sweeper sends it again once it has been pending long enough,
    to the scoring queue at the figures' priority; run, it draws them."""
    run = submit_run(demo_run)
    assert jobs.score_submission(run.pk) == "scored"
    evaluation = Evaluation.objects.get(submission=run)
    soon = timezone.now() + timedelta(seconds=5)
    assert sweeper.sweep(now=soon)["figures"] == 0
    later = timezone.now() + timedelta(seconds=settings.RUN_FIGURES_RESEND_AFTER + 1)
    assert sweeper.sweep(now=later)["figures"] == 1
    assert run_figures.sent(evaluation.figures_key) == [
        [evaluation.pk, evaluation.figures_key]
    ]
    assert jobs.draw_run_figures(evaluation.pk, evaluation.figures_key) == "drawn"
    assert Artefact.objects.filter(evaluation=evaluation).count() >= 2
    assert sweeper.sweep(now=later + timedelta(days=1))["figures"] == 0


def test_a_drawing_whose_worker_was_lost_is_taken_over(submit_run, demo_run, test_set):  # noqa: ANN001
    """A worker that claimed the drawing and died: after the job's time limit the
    sweeper sends the job again under a new key, and the lost worker, should it
    wake up, stores nothing."""
    run = submit_run(demo_run)
    assert jobs.score_submission(run.pk) == "scored"
    evaluation = Evaluation.objects.get(submission=run)
    old = evaluation.figures_key
    assert lifecycle.claim_figures(evaluation.pk, old) is not None  # then it died
    later = timezone.now() + timedelta(seconds=settings.RUN_FIGURES_TIME_LIMIT + 31)
    assert sweeper.sweep(now=later)["figures"] == 1
    evaluation.refresh_from_db()
    assert evaluation.figures == "pending" and evaluation.figures_key != old
    assert run_figures.sent(evaluation.figures_key)
    assert not lifecycle.store_figures(evaluation.pk, old, ())
    assert jobs.draw_run_figures(evaluation.pk, evaluation.figures_key) == "drawn"


def test_figures_pending_on_a_test_set_the_viewer_may_not_see_are_not_spoken_of(
    client, organiser, submit_run, demo_run, test_set, private_test_set
):  # noqa: ANN001
    """The status part says "being drawn" only of figures the viewer may see: a
    run's figures on a private test set are the organisers' to know about."""
    run = submit_run(demo_run)
    assert jobs.score_submission(run.pk) == "scored"
    public = Evaluation.objects.get(submission=run, test_set=test_set)
    assert jobs.draw_run_figures(public.pk, public.figures_key) == "drawn"
    private = Evaluation.objects.get(submission=run, test_set=private_test_set)
    assert private.figures == "pending"
    assert PENDING.encode() not in _status(client, run).content  # anonymous
    page = client.get(reverse("competitions:run-detail", args=[run.pk])).content
    assert PENDING.encode() not in page
    client.force_login(organiser)
    assert PENDING.encode() in _status(client, run).content
    assert run_figures.draw_pending(run) == 1
    assert PENDING.encode() not in _status(client, run).content
