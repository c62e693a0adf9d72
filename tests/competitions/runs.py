"""Runs with stored scores, made directly (no file, no scorer): for tests of what
boards, pages and exports do with scores."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from evalhub.competitions.models import Score, Submission


def stored_run(phase, team, user, scores, *, minutes_ago, method="m", status="scored"):  # noqa: ANN001, ANN202
    """A run with AP ``scores`` = {test set: value}."""
    sub = Submission.objects.create(
        phase=phase,
        team=team,
        submitter=user,
        original_name="r",
        sha256="0" * 64,
        method_name=method,
        status=status,
        created_at=timezone.now() - timedelta(minutes=minutes_ago),
    )
    for ts, value in scores.items():
        sub.evaluations.create(test_set=ts, scorer_version="1", gold_version=0)
        Score.objects.create(
            submission=sub, test_set=ts, metric="ap", value=value, scorer_version="1"
        )
    return sub


def hide_as_its_team(client, run, member) -> None:  # noqa: ANN001
    """``run`` hidden by ``member`` of its team through the run page's form (the
    web request a participant sends); ``client`` is left signed out."""
    from django.urls import reverse

    from evalhub.competitions.models import Submission

    client.force_login(member)
    answer = client.post(
        reverse("competitions:run-visibility", args=[run.pk]), {"hidden": "1"}
    )
    assert answer.status_code == 302
    assert Submission.objects.get(pk=run.pk).hidden
    client.logout()
