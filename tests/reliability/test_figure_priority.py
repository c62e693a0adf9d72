"""A run's own figures are drawn after every waiting score (issue 47): a real worker
against Redis, consuming the scoring queue as the scoring worker does, takes a
scoring job sent after a figure job first (message priority: the figures' route in
``settings.CELERY_TASK_ROUTES``), then draws the figures."""

from __future__ import annotations

import pytest

from evalhub import worker_queues
from evalhub.competitions.models import Evaluation, Submission
from evalhub.competitions.services.runs import scoring, submit
from tests.reliability.conftest import wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_scoring_job_sent_after_a_figure_job_is_taken_first(
    cluster, phase, participant, team, demo_run, test_set
):  # noqa: ANN001
    phase.daily_limit = phase.total_limit = 100
    phase.save(update_fields=["daily_limit", "total_limit"])

    def run(name: str) -> Submission:
        return submit.submit_run(
            phase=phase, user=participant, filename="run.tsv", data=demo_run,
            method_name=name,
        )  # fmt: skip

    first = run("first")
    # Scored here, before any worker runs: its figure job is sent once the score
    # commits, and waits in the broker (as does first's own scoring job, a no-op).
    assert scoring.score_submission(submission_id=first.pk) == "scored"
    figures = Evaluation.objects.get(submission=first)
    assert figures.figures == "pending"
    second = run("second")  # its scoring job is sent after the figure job
    scorer = cluster.worker("scorer", queues=worker_queues.argument("scoring"))
    cluster.wait_ready(scorer)

    def done() -> bool:
        second.refresh_from_db()
        figures.refresh_from_db()
        return second.status == Submission.Status.SCORED and figures.figures == "drawn"

    wait_for(done, "the second run scored and the first run's figures drawn")
    # One job at a time: the figures were drawn (their last change) after the
    # second run was scored, although their job was sent first.
    assert second.finished_at <= figures.figures_at
    assert figures.artefacts.count() >= 2
    # And the second run's own figures follow, drawn by the same worker.
    wait_for(
        lambda: Evaluation.objects.filter(submission=second, figures="drawn").exists(),
        "the second run's figures drawn",
    )
