"""Replaced gold: old scores are kept, one click rescores the outdated runs, and the
organisers' rescoring page shows before and after side by side (nobody else sees it)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evalhub.competitions import jobs
from evalhub.competitions.models import Score, ScoreSnapshot, Submission
from evalhub.competitions.services.data import datasets
from evalhub.competitions.services.runs import rescoring

pytestmark = pytest.mark.django_db


def _ap(sub, test_set) -> float:  # noqa: ANN001
    return Score.objects.get(submission=sub, test_set=test_set, metric="ap").value


@pytest.fixture
def smaller_gold(bucc_demo) -> bytes:  # noqa: ANN001
    """The demo gold without its first 40 pairs: changes every run's AP."""
    lines = bucc_demo.test_sets[0].gold["gold"].splitlines()
    return b"\n".join(lines[40:]) + b"\n"


def test_new_gold_keeps_old_scores_and_rescoring_shows_both(
    submit_run, demo_run, test_set, smaller_gold, django_capture_on_commit_callbacks
):
    sub = submit_run(demo_run)
    jobs.score_submission(sub.pk)
    before = _ap(sub, test_set)
    assert rescoring.stale_runs(task=test_set.phase.task) == []
    # A plain rescore with the same versions keeps nothing.
    from evalhub.competitions.services.runs import lifecycle

    lifecycle.rescore(submission_ids=[sub.pk])
    jobs.score_submission(sub.pk)
    assert not ScoreSnapshot.objects.exists()

    old = test_set.gold_version
    datasets.store_file(
        test_set=test_set, role="gold", filename="gold-v1.tsv", data=smaller_gold
    )
    # Replacing gold queues every run with scores on the test set for rescoring
    # (the job is run by hand below): nothing is left for the one-click rescore.
    assert Submission.objects.get(pk=sub.pk).status == Submission.Status.QUEUED
    with django_capture_on_commit_callbacks():
        assert rescoring.rescore_stale(task=test_set.phase.task) == 0
    jobs.score_submission(sub.pk)
    after = _ap(sub, test_set)
    assert after != pytest.approx(before)

    snap = ScoreSnapshot.objects.get()
    assert (snap.submission_id, snap.gold_version) == (sub.pk, old)
    assert snap.metrics["ap"] == pytest.approx(before)
    assert rescoring.stale_runs(task=test_set.phase.task) == []

    [ts] = rescoring.comparison(task=test_set.phase.task)
    [row] = ts.rows
    assert row.current and ts.stale == 0
    assert row.before_label.startswith(f"gold v{old}")
    assert row.after_label.startswith(f"gold v{old + 1}")
    ap = ts.metric_labels.index(
        next(m.label for m in test_set.phase.task.type.metrics if m.key == "ap")
    )
    cell = row.cells[ap]
    assert (cell.before, cell.after) == (f"{before:.4f}", f"{after:.4f}")
    assert cell.change == f"{after - before:+.4f}".replace("-", "−")


def test_rescoring_page_is_for_organisers_only(
    client, organiser, participant, outsider, submit_run, demo_run, test_set, task
):
    sub = submit_run(demo_run)
    jobs.score_submission(sub.pk)
    url = reverse("competitions:task-rescoring", args=[task.slug])
    assert client.get(url).status_code == 302  # to the login page
    for user in (participant, outsider):
        client.force_login(user)
        assert client.get(url).status_code == 404
        assert client.post(url).status_code == 404
    client.force_login(organiser)
    page = client.get(url)
    assert page.status_code == 200
    assert f"#{sub.pk}" in page.content.decode()
    assert "every run is up to date" in page.content.decode()
    response = client.post(url)
    assert response.status_code == 302
    # Nothing was outdated: nothing was queued.
    assert Submission.objects.get(pk=sub.pk).status == Submission.Status.SCORED
