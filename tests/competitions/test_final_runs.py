"""Final-run choice and hidden runs (services): which runs each board ranks, the N
limit, the deadline, the fallback to the best public run, hidden runs left out of
everything the public sees, the Ladder, and cache invalidation."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from evalhub.competitions.models import Submission
from evalhub.competitions.services.boards import (
    exports,
    leaderboard,
    overall,
    selection,
)
from evalhub.competitions.services.runs import finals, hiding
from tests.competitions.runs import stored_run as _run

pytestmark = pytest.mark.django_db


def _ids(test_set, *, include_hidden=False):  # noqa: ANN001, ANN202
    board = leaderboard.compute(test_set=test_set, include_hidden=include_hidden)
    return [r.submission_id for r in board.rows]


@pytest.fixture
def runs(phase, test_set, private_test_set, team, participant):  # noqa: ANN001, ANN201
    """Alpha's three runs: the best public score is not the best private one."""
    pub, priv = test_set, private_test_set
    return {
        "best_public": _run(
            phase, team, participant, {pub: 0.9, priv: 0.3}, minutes_ago=30
        ),
        "best_private": _run(
            phase, team, participant, {pub: 0.5, priv: 0.8}, minutes_ago=20
        ),
        "middle": _run(phase, team, participant, {pub: 0.6, priv: 0.6}, minutes_ago=10),
    }


def test_no_choice_falls_back_to_the_best_public_run(runs, test_set, private_test_set):
    assert _ids(private_test_set) == [runs["best_public"].pk]
    # Public test sets keep the best run per team.
    assert _ids(test_set) == [runs["best_public"].pk]


def test_chosen_final_runs_are_ranked_on_private_test_sets_only(
    runs, phase, test_set, private_test_set, participant
):
    phase.max_final_runs = 2
    phase.save()
    for key in ("middle", "best_private"):
        finals.set_final(submission=runs[key], user=participant, final=True)
    assert _ids(private_test_set) == [runs["best_private"].pk, runs["middle"].pk]
    assert _ids(test_set) == [runs["best_public"].pk]
    ranking = overall.overall(phase=phase, user=AnonymousUser())
    # Overall: only the public test set is visible to the public; the final runs.
    assert [r.submission_id for r in ranking.rows] == [
        runs["middle"].pk,
        runs["best_private"].pk,
    ]


def test_every_run_counts_when_the_limit_is_zero(
    runs, phase, private_test_set, participant
):
    phase.max_final_runs = 0
    phase.save()
    assert _ids(private_test_set) == [runs["best_private"].pk]
    with pytest.raises(finals.ChoiceRefused, match="Every run counts"):
        finals.set_final(submission=runs["middle"], user=participant, final=True)


def test_more_than_n_final_runs_are_refused_with_a_clear_message(
    runs, phase, participant
):
    finals.set_final(submission=runs["middle"], user=participant, final=True)
    with pytest.raises(finals.ChoiceRefused) as refused:
        finals.set_final(submission=runs["best_private"], user=participant, final=True)
    message = str(refused.value)
    assert "at most 1 final run" in message and f"run {runs['middle'].pk}" in message
    finals.set_final(submission=runs["middle"], user=participant, final=False)
    finals.set_final(submission=runs["best_private"], user=participant, final=True)
    chosen = finals.choices(phase=phase, team=runs["middle"].team).chosen
    assert [s.pk for s in chosen] == [runs["best_private"].pk]


def test_final_runs_cannot_change_after_the_phase_closes(runs, phase, participant):
    finals.set_final(submission=runs["middle"], user=participant, final=True)
    phase.closes_at = timezone.now() - timedelta(minutes=1)
    phase.save()
    with pytest.raises(finals.ChoiceRefused, match="closed"):
        finals.set_final(submission=runs["middle"], user=participant, final=False)
    assert Submission.objects.get(pk=runs["middle"].pk).final_selected


def test_only_the_team_chooses_and_failed_runs_cannot_be_final(
    runs, phase, team, participant, outsider, organiser, other_team
):
    for user in (outsider, organiser, AnonymousUser()):
        with pytest.raises(finals.ChoiceRefused):
            finals.set_final(submission=runs["middle"], user=user, final=True)
        with pytest.raises(finals.ChoiceRefused):
            hiding.set_hidden(submission=runs["middle"], user=user, hidden=True)
    failed = _run(phase, team, participant, {}, minutes_ago=1, status="failed")
    with pytest.raises(finals.ChoiceRefused, match="failed"):
        finals.set_final(submission=failed, user=participant, final=True)


def test_a_choice_invalidates_the_cached_boards(
    runs, phase, private_test_set, participant
):
    assert [
        r.submission_id for r in leaderboard.board(test_set=private_test_set).rows
    ] == [runs["best_public"].pk]
    finals.set_final(submission=runs["middle"], user=participant, final=True)
    assert [
        r.submission_id for r in leaderboard.board(test_set=private_test_set).rows
    ] == [runs["middle"].pk]
    hiding.set_hidden(submission=runs["middle"], user=participant, hidden=True)
    assert leaderboard.board(test_set=private_test_set).rows == ()
    assert [
        r.submission_id
        for r in leaderboard.board(test_set=private_test_set, include_hidden=True).rows
    ] == [runs["middle"].pk]


def test_hidden_runs_are_left_out_of_public_boards_ranks_and_fallbacks(
    runs,
    phase,
    test_set,
    private_test_set,
    participant,
    outsider,
    other_team,
    organiser,
):
    rival = _run(
        phase,
        other_team,
        outsider,
        {test_set: 0.7, private_test_set: 0.5},
        minutes_ago=5,
        method="rival",
    )
    hiding.set_hidden(submission=runs["best_public"], user=participant, hidden=True)
    # The public board is computed as if the hidden run did not exist: Alpha's best
    # shown run ranks, the rival is first, ranks have no gap.
    board = leaderboard.compute(test_set=test_set)
    assert [(r.rank, r.submission_id) for r in board.rows] == [
        (1, rival.pk),
        (2, runs["middle"].pk),
    ]
    assert not any(r.hidden for r in board.rows)
    # Private: the fallback is Alpha's best *shown* public run.
    assert _ids(private_test_set) == [runs["middle"].pk, rival.pk]
    # Organisers see the hidden run, marked, where it ranks.
    full = leaderboard.compute(test_set=test_set, include_hidden=True)
    assert [(r.submission_id, r.hidden) for r in full.rows] == [
        (runs["best_public"].pk, True),
        (rival.pk, False),
    ]
    # Viewers get their variant through board_for.
    assert leaderboard.board_for(test_set=test_set, user=organiser).rows == full.rows
    for user in (AnonymousUser(), participant, outsider):
        shown = leaderboard.board_for(test_set=test_set, user=user)
        assert runs["best_public"].pk not in [r.submission_id for r in shown.rows]
    # A hidden final run is not replaced by another run on the public board.
    finals.set_final(submission=runs["best_public"], user=participant, final=True)
    assert _ids(private_test_set) == [rival.pk]
    assert runs["best_public"].pk in _ids(private_test_set, include_hidden=True)


def test_public_exports_never_carry_hidden_runs_or_choices(
    runs, phase, test_set, private_test_set, participant, organiser
):
    private_test_set.revealed = True
    private_test_set.save()
    finals.set_final(submission=runs["middle"], user=participant, final=True)
    hiding.set_hidden(submission=runs["best_public"], user=participant, hidden=True)
    public = exports.leaderboard_export(phase=phase, user=AnonymousUser())
    rows = [row for ts in public["test_sets"] for row in ts["rows"]]
    assert {row["run"] for row in rows} == {runs["middle"].pk}
    assert all("hidden" not in row and "final" not in row for row in rows)
    assert {"interval_low", "interval_high", "band"} <= set(rows[0])
    organiser_rows = [
        row
        for ts in exports.leaderboard_export(phase=phase, user=organiser)["test_sets"]
        for row in ts["rows"]
    ]
    assert {(row["run"], row["hidden"], row["final"]) for row in organiser_rows} == {
        (runs["best_public"].pk, True, False),
        (runs["middle"].pk, False, True),
    }


def test_without_public_test_sets_the_fallback_is_the_latest_run(
    phase, private_test_set, team, participant
):
    private_test_set.phase.test_sets.exclude(pk=private_test_set.pk).delete()
    _run(phase, team, participant, {private_test_set: 0.9}, minutes_ago=9)
    latest = _run(phase, team, participant, {private_test_set: 0.1}, minutes_ago=1)
    assert _ids(private_test_set) == [latest.pk]


def test_ladder_mode_still_shapes_public_boards_and_ignores_hidden_runs(
    runs, phase, test_set, private_test_set, participant
):
    from evalhub.rankings.models import PhaseRanking, TestSetStatistics

    ranking = PhaseRanking.objects.create(phase=phase, ladder=True)
    key = selection.team_key(runs["middle"].team_id, False)
    TestSetStatistics.objects.create(
        test_set=test_set,
        data={
            "ladder": {
                "shown": {key: runs["middle"].pk},
                "gold_version": test_set.gold_version,
                "margin": ranking.ladder_margin,
            }
        },
    )
    board = leaderboard.compute(test_set=test_set)
    assert board.ladder and _ids(test_set) == [runs["middle"].pk]
    # The private board's fallback is the best score the public may see: the
    # Ladder withholds the others' public scores, so it is the released run.
    assert _ids(private_test_set) == [runs["middle"].pk]
    # The released run hidden: the team has no public row; no other run of it
    # (the first one, or the best one) takes the hidden one's place.
    hiding.set_hidden(submission=runs["middle"], user=participant, hidden=True)
    assert _ids(test_set) == []


def test_teams_choices_are_listed_for_organisers(runs, phase, participant):
    finals.set_final(submission=runs["middle"], user=participant, final=True)
    hiding.set_hidden(submission=runs["best_public"], user=participant, hidden=True)
    [row] = finals.organiser_overview(phase=phase)
    assert row["finals"] == [runs["middle"]] and row["hidden"] == 1
    assert row["runs"] == 3


def test_baseline_runs_are_not_the_teams_to_choose(phase, test_set, team, participant):
    baseline = _run(phase, team, participant, {test_set: 0.1}, minutes_ago=1)
    Submission.objects.filter(pk=baseline.pk).update(is_baseline=True)
    baseline.refresh_from_db()
    with pytest.raises(finals.ChoiceRefused):
        finals.set_final(submission=baseline, user=participant, final=True)


def test_a_chosen_run_that_failed_is_no_choice(
    runs, phase, private_test_set, participant
):
    finals.set_final(submission=runs["middle"], user=participant, final=True)
    Submission.objects.filter(pk=runs["middle"].pk).update(status="failed")
    # Not ranked, not counted: the fallback ranks, and another run can be chosen.
    assert _ids(private_test_set) == [runs["best_public"].pk]
    finals.set_final(submission=runs["best_private"], user=participant, final=True)
    assert _ids(private_test_set) == [runs["best_private"].pk]


def test_bundles_carry_the_final_run_limit(organiser, bucc_demo, isolated_storage):
    from evalhub.competitions.services.data import bundles
    from tests.competitions.test_bundles import MANIFEST
    from tests.zips import zip_bytes

    ts = bucc_demo.test_sets[0]
    files = {
        "data/src.txt": ts.inputs["source_terms"],
        "data/tgt.txt": ts.inputs["target_terms"],
        "data/gold.tsv": ts.gold["gold"],
    }
    manifest = MANIFEST.replace("    daily_limit: 4\n", "    max_final_runs: 3\n")
    task = bundles.import_bundle(
        data=zip_bytes({"task.yaml": manifest.encode(), **files}), user=organiser
    )
    assert task.phases.get().max_final_runs == 3
    exported = bundles.export_bundle(task=task)
    task.delete()
    again = bundles.import_bundle(data=exported, user=organiser)
    assert again.phases.get().max_final_runs == 3
