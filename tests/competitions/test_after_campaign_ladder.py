"""The evaluation after the campaign continues the campaign's Ladder (issue 41,
item 4): the Ladder protects the test data, not the phase. On main the copy had no
Ladder, and a team that sent the run the Ladder withheld during the campaign again
read its score on the public "after the campaign" board. Each step goes through the
production path: the console's form, the submit page, the scoring and statistics
jobs, the public board and the team's run page."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from evalhub.competitions import jobs
from evalhub.competitions.models import Phase, Score, Submission
from evalhub.competitions.services import after_campaign
from evalhub.competitions.services.boards import selection, visibility
from evalhub.rankings import jobs as ranking_jobs
from evalhub.rankings.models import PhaseRanking
from tests.rankings.helpers import scored
from tests.rankings.test_statistics import _noisy

pytestmark = pytest.mark.django_db


def _open(client, organiser, task) -> Phase:  # noqa: ANN001
    """The campaign ended an hour ago; an organiser opens the evaluation after it
    on the console."""
    now = timezone.now()
    Phase.objects.filter(task=task).update(
        opens_at=now - timedelta(days=30), closes_at=now - timedelta(hours=1)
    )
    client.force_login(organiser)
    response = client.post(
        reverse("console:after-campaign", args=[task.slug]),
        {
            "time_zone": "UTC",
            "closes_at": "2099-01-15T12:00",
            "daily_limit": "5",
            "total_limit": "9",
        },
    )
    assert response.status_code == 302
    return Phase.objects.get(task=task, after_campaign=True)


def _send(client, participant, task, phase: Phase, data: bytes, method: str):  # noqa: ANN001, ANN202
    """The team sends a run on the submit page; the worker scores it and
    refreshes the statistics."""
    client.force_login(participant)
    response = client.post(
        reverse("competitions:run-submit", args=[task.slug, phase.slug]),
        {"run": SimpleUploadedFile("run.tsv", data), "method_name": method},
    )
    assert response.status_code == 302
    run = Submission.objects.get(phase=phase, method_name=method)
    assert jobs.score_submission(run.pk) == "scored"
    for copy in phase.test_sets.all():
        ranking_jobs.refresh_statistics(copy.pk)
    return run


def _shown(client, task, phase: Phase, run: Submission) -> bool:  # noqa: ANN001
    """The run's score can be read by its own team: on the public board (its
    JSON) or on its run page."""
    copy = phase.test_sets.get()
    value = Score.objects.get(
        submission=run, test_set=copy, metric=task.type.primary_metric
    ).value
    board = client.get(f"/tasks/{task.slug}/{phase.slug}/leaderboard.json")
    page = client.get(run.get_absolute_url()).content.decode()
    return run.method_name in board.content.decode() or f"{value:.4f}" in page


def test_a_withheld_campaign_run_sent_again_after_the_campaign_stays_withheld(
    client, organiser, task, phase, test_set, bucc_demo, participant, team
):
    PhaseRanking.objects.create(phase=phase, ladder=True, ladder_margin=1.5)
    runs = {method: files["test"] for _, method, files in bucc_demo.runs}
    base = runs["roots only"]
    noisy = _noisy(base, bucc_demo.test_sets[0].gold["gold"])
    first = scored(phase, participant, base, "first", figures=False)
    withheld = scored(phase, participant, noisy, "noisy", figures=False)
    ranking_jobs.refresh_statistics(test_set.pk)
    assert visibility.released(test_set) == {
        selection.team_key(team.pk, False): first.pk
    }
    assert withheld.pk not in set(visibility.released(test_set).values())

    after = _open(client, organiser, task)
    # The same Ladder settings, on a copy that knows what it copies.
    ranking = PhaseRanking.objects.get(phase=after)
    assert (ranking.ladder, ranking.ladder_margin) == (True, 1.5)
    assert after.test_sets.get().copied_from == test_set

    again = _send(client, participant, task, after, noisy, "noisy again")
    assert not _shown(client, task, after, again)
    # A run that beats the team's released campaign run is released, as it
    # would have been during the campaign.
    better = _send(client, participant, task, after, runs["dictionary"], "better")
    assert _shown(client, task, after, better)
    assert not _shown(client, task, after, again)
    # The board and the organisers' page say so.
    board = client.get(f"/tasks/{task.slug}/{after.slug}/leaderboard/").content
    assert b"continues from its campaign runs" in board
    client.force_login(organiser)
    page = client.get(reverse("console:after-campaign", args=[task.slug])).content
    assert b"the Ladder protects the test data, not the phase" in page


def test_a_newcomer_after_the_campaign_is_released_as_before(
    client, organiser, task, phase, test_set, bucc_demo, participant, team
):
    """A team without campaign runs starts its history after the campaign: its
    first run is released."""
    PhaseRanking.objects.create(phase=phase, ladder=True)
    after = _open(client, organiser, task)
    base = next(iter(bucc_demo.runs[0][2].values()))
    run = _send(client, participant, task, after, base, "newcomer")
    assert _shown(client, task, after, run)


def test_one_evaluation_after_the_campaign_per_task(
    client, organiser, task, phase, test_set
):
    """Main checked for an existing phase without a lock or a constraint: two
    openings at once made two. The database refuses a second one, the service
    refuses to open it twice, and the console changes the one that exists."""
    after = _open(client, organiser, task)
    with pytest.raises(IntegrityError), transaction.atomic():
        Phase.objects.create(
            task=task, slug="again", name="Again", after_campaign=True,
            opens_at=after.opens_at, closes_at=after.closes_at,
        )  # fmt: skip
    with pytest.raises(after_campaign.Refused, match="already has"):
        after_campaign.open_for_evaluation(
            task=task, closes_at=timezone.now() + timedelta(days=3)
        )
    response = client.post(
        reverse("console:after-campaign", args=[task.slug]),
        {
            "time_zone": "UTC",
            "closes_at": "2099-02-01T12:00",
            "daily_limit": "2",
            "total_limit": "3",
        },
    )
    assert response.status_code == 302
    (changed,) = Phase.objects.filter(task=task, after_campaign=True)
    assert changed.pk == after.pk
    assert (changed.daily_limit, changed.total_limit) == (2, 3)
    assert changed.test_sets.count() == 1  # nothing copied twice
