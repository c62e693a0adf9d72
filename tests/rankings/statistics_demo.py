"""A demo task of one task type with its demo runs scored through the scoring job
and its statistics refreshed by the statistics job (the production path), for the
tests of units, power, the band rule and degenerate intervals."""

from __future__ import annotations

from django.urls import reverse

from evalhub.competitions.models import SharedTask, Submission
from evalhub.competitions.services.data import demo
from evalhub.competitions.services.runs import scoring
from evalhub.rankings import jobs


def scored_demo(slug: str) -> SharedTask:
    (task,) = demo.seed_demo(slugs=[slug])
    for sub in Submission.objects.filter(phase__task=task).order_by("pk"):
        assert scoring.score_submission(submission_id=sub.pk) == "scored"
    for ts in task.phases.get().test_sets.all():
        assert jobs.refresh_statistics(ts.pk) == "refreshed"
    return task


def leaderboard_html(client, task: SharedTask) -> str:  # noqa: ANN001
    phase = task.phases.get()
    response = client.get(
        reverse("competitions:leaderboard-detail", args=[task.slug, phase.slug])
    )
    assert response.status_code == 200
    return response.content.decode()


def significance_html(client, test_set) -> str:  # noqa: ANN001
    response = client.get(reverse("rankings:significance-detail", args=[test_set.pk]))
    assert response.status_code == 200
    return response.content.decode()


def holm_adjusted(p_values: list[float]) -> list[float]:
    """Holm's adjusted p-values (the step-down maximum of ``(m - k) p_(k)``),
    written apart from the production code's sequential form, to check it."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (m - k) * p_values[i]))
        adjusted[i] = running
    return adjusted
