"""End to end: a real Celery worker process, the real broker (REDIS_URL, or the
embedded Redis) and the real database (DATABASE_URL in CI: PostgreSQL). A participant
uploads through the web client and waits, polling with a deadline, for the row on the
leaderboard."""

from __future__ import annotations

import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from evalhub.competitions.models import Submission

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DEADLINE_SECONDS = 180


def _wait_for(predicate, what: str):  # noqa: ANN001, ANN202
    deadline = time.monotonic() + DEADLINE_SECONDS
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"timed out after {DEADLINE_SECONDS} s waiting for {what}")


def _rendered_ahead(phase, submission_id: int, monkeypatch) -> bool:  # noqa: ANN001
    import zoneinfo

    from django.contrib.auth.models import AnonymousUser
    from django.utils import timezone

    from evalhub.competitions.services.boards import board_pages

    def not_here(*args: object, **kwargs: object) -> str:
        raise LookupError("not rendered ahead")

    with monkeypatch.context() as m, timezone.override(zoneinfo.ZoneInfo("UTC")):
        m.setattr(board_pages, "render_to_string", not_here)
        try:
            html = board_pages.boards_fragment(
                phase=phase, test_sets=list(phase.test_sets.all()), user=AnonymousUser()
            )
        except LookupError:
            return False
    return f"/runs/{submission_id}/" in html


def test_upload_is_scored_by_a_worker_and_ranked(
    client, worker, participant, task, phase, team, test_set, demo_run, monkeypatch
):
    client.force_login(participant)
    board_url = reverse("competitions:leaderboard-detail", args=[task.slug, phase.slug])
    assert client.get(board_url).status_code == 200  # the board has a reader
    response = client.post(
        reverse("competitions:run-submit", args=[task.slug, phase.slug]),
        {
            "method_name": "dictionary",
            "run": SimpleUploadedFile("dictionary.tsv", demo_run),
        },
    )
    assert response.status_code == 302, response.content[:2000]
    sub = Submission.objects.get()
    status_url = reverse("competitions:run-status", args=[sub.pk])
    first = client.get(status_url, HTTP_HX_REQUEST="true").content.decode()
    assert "Queued" in first or "Scoring" in first or "Scored" in first

    def scored() -> bool:
        assert worker.poll() is None, "the worker died"
        sub.refresh_from_db()
        assert sub.status not in ("failed", "rejected"), sub.failure_message
        return sub.status == "scored"

    _wait_for(scored, "the run to be scored")
    # The worker rendered the public boards before they showed: no viewer renders.
    _wait_for(
        lambda: _rendered_ahead(phase, sub.pk, monkeypatch), "boards rendered ahead"
    )
    # The run's own figures follow the score, drawn by their own job: the status
    # part polls until they are there, then reloads the page.
    _wait_for(
        lambda: not sub.evaluations.exclude(figures="drawn").exists(),
        "the run's figures drawn",
    )
    final = client.get(status_url, HTTP_HX_REQUEST="true")
    assert "Scored" in final.content.decode() and final["HX-Refresh"] == "true"
    page = client.get(f"/runs/{sub.pk}/").content.decode()
    assert "Figures are being drawn" not in page and f"/runs/{sub.pk}/plots/" in page

    _wait_for(
        lambda: f"/runs/{sub.pk}/" in client.get(board_url).content.decode(),
        "the leaderboard row",
    )
    run_page = client.get(
        reverse("competitions:run-detail", args=[sub.pk])
    ).content.decode()
    assert "Average precision" in run_page or "AP" in run_page
    plot = sub.evaluations.get().artefacts.first()
    svg = client.get(reverse("competitions:run-plot", args=[sub.pk, plot.pk, "svg"]))
    assert svg.status_code == 200 and svg["Content-Type"] == "image/svg+xml"
    # The worker refreshed the task-level analyses after scoring (difficulty bins).
    _wait_for(
        lambda: test_set.task_artefacts.filter(key="analysis").exists(),
        "the difficulty bins",
    )
    assert sub.attempts == 1
