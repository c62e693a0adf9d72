"""A run's own figures (``TaskType.plots``), drawn by a job of their own after its
score is stored: the scoring job stores the score and sends this job after its
commit, so the score lands without waiting for the drawing (most of a small run's
CPU). The job runs on the scoring queue at a lower priority than scoring
(``settings.RUN_FIGURES_PRIORITY``): a worker takes every waiting scoring job first.

The figures are drawn from what the evaluation stored (metrics as ``Score`` rows,
payload, curves, warnings, per-item detail: the whole ``ScoreReport``), never from
the run file or the gold again. The state is ``Evaluation.figures``
(pending -> drawing -> drawn, ``evaluations.py``): one claim per ``figures_key``,
so a job is drawn once, and a job of an evaluation scored again, taken over or
withdrawn meanwhile is a no-op. The sweeper (``sweeper.py``) sends again the jobs
of figures pending or drawing for too long (a job lost with the broker or its
worker)."""

from __future__ import annotations

import logging
from datetime import timedelta

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.utils import timezone

from evalhub.competitions import logs, queue
from evalhub.competitions.models import Evaluation, Score, SharedTask
from evalhub.competitions.services.runs import lifecycle
from tasks.base import Curve, Plot, ScoreReport

log = logging.getLogger(__name__)


def draw(*, evaluation_id: int, key: str) -> str:
    """Draw and store the figures named ``key`` (the job). Returns "drawn", or
    "skipped" (already drawn or being drawn, superseded, withdrawn)."""
    evaluation = lifecycle.claim_figures(evaluation_id, key)
    if evaluation is None:
        return "skipped"
    plots = _plots(evaluation)
    return "drawn" if lifecycle.store_figures(evaluation_id, key, plots) else "skipped"


def report(evaluation: Evaluation) -> ScoreReport:
    """The report the scorer returned, rebuilt from what the evaluation stored."""
    values = dict(
        Score.objects.filter(
            submission_id=evaluation.submission_id, test_set_id=evaluation.test_set_id
        ).values_list("metric", "value")
    )
    order = [m.key for m in evaluation.submission.phase.task.type.metrics]
    metrics = {k: values.pop(k) for k in order if k in values} | values
    return ScoreReport(
        metrics=metrics,
        payload=evaluation.payload,
        curves=tuple(Curve.from_json(c) for c in evaluation.curves),
        warnings=tuple(evaluation.warnings),
        detail=evaluation.detail,
    )


def _plots(evaluation: Evaluation) -> tuple[Plot, ...]:
    """The task type's figures of the stored report; none if drawing them fails
    (logged: the score stands, and drawing again would fail again)."""
    task = evaluation.submission.phase.task
    try:
        task_type = task.type
        return tuple(
            task_type.plots(
                report(evaluation), task_type.parse_settings(task.task_settings)
            )
        )
    except SoftTimeLimitExceeded:
        log.error("figures of evaluation %s took too long; none kept", evaluation.pk)
    except Exception:  # noqa: BLE001 - a figure bug must not leave the row drawing
        logs.error_without_text(log, "figures of evaluation %s failed", evaluation.pk)
    return ()


def resend_lost(*, now=None) -> int:  # noqa: ANN001
    """The sweeper's part: send again the jobs of figures pending for longer than
    ``RUN_FIGURES_RESEND_AFTER`` or being drawn for longer than the job's time limit
    (``lifecycle.lost_figures``). Returns how many were sent."""
    now = now or timezone.now()
    lost = lifecycle.lost_figures(
        now=now,
        pending_before=now - timedelta(seconds=settings.RUN_FIGURES_RESEND_AFTER),
        drawing_before=now - timedelta(seconds=settings.RUN_FIGURES_TIME_LIMIT + 30),
    )
    for evaluation_id, key in lost:
        queue.enqueue_run_figures(evaluation_id, key)
    if lost:
        log.warning("run figures sent again for %s evaluations", len(lost))
    return len(lost)


def draw_pending(*, task: SharedTask) -> int:
    """Draw now the figures of ``task``'s runs still pending (an archive export
    wants them all; each is claimed as its job claims it, so the job, if it comes
    later, is a no-op). Figures another worker is drawing are left to it (an
    archive records their state: the site importing it draws them). Returns how
    many evaluations were drawn."""
    pending = Evaluation.objects.filter(
        submission__phase__task=task, figures=Evaluation.Figures.PENDING
    ).order_by("pk")
    return sum(
        draw(evaluation_id=pk, key=key) == "drawn"
        for pk, key in pending.values_list("pk", "figures_key")
    )
