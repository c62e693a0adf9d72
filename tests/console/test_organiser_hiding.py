"""The organisers' hiding of a run is their own decision (issue 41, item 5): on main
a run hidden through the console's bulk action was shown again by its own team with
one click on its run page, though the confirmation page had promised it was taken
off the boards. Now the decision is recorded (who, when), the team sees that the
organisers hid the run and cannot show it, and only the organisers show it again.
Every step is a web request (the console's runs page and its confirmation, the run
page's button, the public board), the run scored by the scoring job."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from evalhub.competitions import jobs
from evalhub.competitions.models import Submission
from evalhub.competitions.services.boards import visibility

pytestmark = pytest.mark.django_db


def _bulk(client, organiser, task, run: Submission, action: str) -> None:  # noqa: ANN001
    """An organiser ticks the run on the console's runs page, sees the
    confirmation page, confirms."""
    client.force_login(organiser)
    url = reverse("console:runs", args=[task.slug])
    form = {"action": action, "scope": "ticked", "run": [run.pk]}
    confirm = client.post(url, form)
    assert confirm.status_code == 200
    if action == "hide":
        assert "only the organisers can show them again" in confirm.content.decode()
    assert client.post(url, {**form, "confirm": "1"}).status_code == 302


def _public(client, task, run: Submission) -> bool:  # noqa: ANN001
    client.logout()
    board = reverse("competitions:leaderboard-detail", args=[task.slug, "evaluation"])
    return run.method_name.encode() in client.get(board).content


def test_the_team_cannot_show_a_run_the_organisers_hid(
    client, organiser, participant, task, phase, test_set, team, submit_run, demo_run
):
    run = submit_run(demo_run, method="zz-hidden-method")
    assert jobs.score_submission(run.pk) == "scored"
    assert _public(client, task, run)
    _bulk(client, organiser, task, run, "hide")
    run.refresh_from_db()
    assert run.hidden and run.hidden_by_organisers_by == organiser
    assert run.hidden_by_organisers_at is not None
    assert not _public(client, task, run)

    # The team sees the organisers' decision, and no button to undo it.
    client.force_login(participant)
    page = client.get(run.get_absolute_url()).content.decode()
    assert "hidden by the organisers" in page
    assert "only the organisers can show it again" in page
    assert "Show publicly" not in page
    assert f"({organiser.username})" not in page  # who decided: for organisers
    runs = reverse("competitions:own-run-list", args=[task.slug])
    assert "hidden by the organisers" in client.get(runs).content.decode()
    # The click main obeyed (the form posted by hand) is refused.
    visibility_url = reverse("competitions:run-visibility", args=[run.pk])
    response = client.post(visibility_url, {"hidden": "0"}, follow=True)
    assert "only they can show it again" in response.content.decode()
    run.refresh_from_db()
    assert run.hidden and run.hidden_by_organisers_at is not None
    assert not _public(client, task, run)
    # Hiding it again is no change.
    client.force_login(participant)
    client.post(visibility_url, {"hidden": "1"})
    run.refresh_from_db()
    assert run.hidden_by_organisers_by == organiser

    # The organisers see who hid it, and they show it again.
    client.force_login(organiser)
    assert (
        f"({organiser.username})" in client.get(run.get_absolute_url()).content.decode()
    )
    _bulk(client, organiser, task, run, "show")
    run.refresh_from_db()
    assert not run.hidden and run.hidden_by_organisers_at is None
    assert _public(client, task, run)


def test_a_run_its_team_hid_becomes_the_organisers_decision_once_they_hide_it(
    client, organiser, participant, task, phase, test_set, team, submit_run, demo_run
):
    run = submit_run(demo_run, method="zz-team-hidden")
    assert jobs.score_submission(run.pk) == "scored"
    client.force_login(participant)
    visibility_url = reverse("competitions:run-visibility", args=[run.pk])
    client.post(visibility_url, {"hidden": "1"})
    _bulk(client, organiser, task, run, "hide")
    client.force_login(participant)
    client.post(visibility_url, {"hidden": "0"})
    run.refresh_from_db()
    assert run.hidden and run.hidden_by_organisers_by == organiser
    assert not _public(client, task, run)


def test_an_organiser_hidden_run_is_hidden_whoever_writes_the_row(
    client, organiser, task, phase, test_set, team, submit_run, demo_run
):
    """The visibility rule reads ``hidden``; a database constraint keeps it set
    while the organisers' decision stands (the admin, a shell, a service)."""
    run = submit_run(demo_run, method="zz-written")
    assert jobs.score_submission(run.pk) == "scored"
    _bulk(client, organiser, task, run, "hide")
    with pytest.raises(IntegrityError), transaction.atomic():
        Submission.objects.filter(pk=run.pk).update(hidden=False)
    run.refresh_from_db()
    assert run.pk not in visibility.visible(
        viewer=visibility.PUBLIC, test_set=test_set, runs=[run]
    )
