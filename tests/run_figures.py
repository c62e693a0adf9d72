"""The jobs that draw scored runs' own figures, run here as a worker runs them.

The scoring job stores a run's score and sends its figure job once its transaction
commits (``services/runs/run_figures.py``); inside a test's transaction (never
committed) no job is sent, so a test that wants the figures runs the job itself,
with the arguments its message carries (the evaluation and its figures key), as it
runs the scoring job itself."""

from __future__ import annotations

from evalhub.competitions import jobs
from evalhub.competitions.models import Evaluation, Submission


def draw_pending(*runs: Submission) -> int:
    """Run the figure job of every evaluation (of ``runs``; of every run if none)
    whose figures are pending. Returns how many were drawn."""
    pending = Evaluation.objects.filter(figures=Evaluation.Figures.PENDING)
    if runs:
        pending = pending.filter(submission__in=[r.pk for r in runs])
    drawn = 0
    for pk, key in pending.order_by("pk").values_list("pk", "figures_key"):
        assert jobs.draw_run_figures(pk, key) == "drawn"
        drawn += 1
    return drawn
