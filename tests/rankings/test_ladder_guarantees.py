"""The Ladder's guarantees (issue 21), one test per defect found on main, each
reproducing it: every consumer of a run's score asks ``services/visibility.py``,
and the Ladder's decisions come from the submission history, not from what is
visible now."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser

from evalhub.api.services import resources
from evalhub.competitions.models import Submission
from evalhub.competitions.services.boards import (
    access,
    board_pages,
    compare,
    exports,
    leaderboard,
    overall,
    overall_figure,
    selection,
    visibility,
)
from evalhub.competitions.services.data import datasets
from evalhub.competitions.services.runs import hiding
from evalhub.rankings import jobs
from evalhub.rankings.models import PhaseRanking
from evalhub.rankings.services import statistics
from tests.rankings.helpers import rescored, scored
from tests.rankings.test_statistics import _noisy

pytestmark = pytest.mark.django_db
ANON = AnonymousUser()


@pytest.fixture
def ladder_runs(task, phase, test_set, private_test_set, bucc_demo, participant, team):
    """A Ladder phase; the team's first run is released, its second looks better
    on the public test set but only by noise (not released)."""
    PhaseRanking.objects.create(phase=phase, ladder=True)
    runs = {method: files["test"] for _, method, files in bucc_demo.runs}
    base = runs["roots only"]
    gold = bucc_demo.test_sets[0].gold["gold"]
    first = scored(phase, participant, base, "first", figures=False)
    noisy = scored(phase, participant, _noisy(base, gold), "noisy", figures=False)
    for ts in (test_set, private_test_set):
        jobs.refresh_statistics(ts.pk)
    assert visibility.released(test_set) == {
        selection.team_key(team.pk, False): first.pk
    }
    return first, noisy


def _public_runs(phase, test_set) -> set[int]:  # noqa: ANN001
    """Every run whose public-test-set score some consumer shows anonymous visitors."""
    seen = {r.submission_id for r in leaderboard.board(test_set=test_set).rows}
    seen |= {r.submission_id for r in overall.overall(phase=phase, user=ANON).rows}
    for ts in exports.leaderboard_export(phase=phase, user=ANON)["test_sets"]:
        seen |= {row["run"] for row in ts["rows"] if ts["test_set"] == test_set.slug}
    for sub in Submission.objects.filter(phase=phase):
        if test_set.slug in resources.run_status(submission=sub, user=ANON)["scores"]:
            seen.add(sub.pk)
        if access.can_see_run_scores(ANON, sub, test_set):
            seen.add(sub.pk)
    return seen


def test_the_overall_ranking_and_its_chart_show_only_released_scores(
    ladder_runs, phase, test_set
):
    """Main ranked the noisy run (its raw public score) in the overall ranking and
    its chart, to anonymous visitors."""
    first, noisy = ladder_runs
    for limit in (1, 0):  # the final-run fallback, and every run counting
        phase.max_final_runs = limit
        phase.save()
        rows = overall.overall(phase=phase, user=ANON).rows
        assert [r.submission_id for r in rows] == [first.pk]
        chart = overall_figure.overall_plot(phase=phase, user=ANON, ext="svg")
        assert b"noisy" not in chart and b"first" in chart
    assert _public_runs(phase, test_set) == {first.pk}


def test_the_default_final_run_is_the_best_released_one(
    ladder_runs, phase, private_test_set
):
    """Main's fallback (best public run) picked the noisy run by its withheld public
    score, and the revealed private board then told everyone which run that was."""
    first, noisy = ladder_runs
    datasets.reveal(test_set=private_test_set)
    private_test_set.refresh_from_db()
    rows = leaderboard.board(test_set=private_test_set).rows
    assert [r.submission_id for r in rows] == [first.pk]


def test_hiding_earlier_runs_releases_nothing(
    ladder_runs, phase, test_set, participant
):
    """On main, hiding the first run made the noisy one "first" and released it."""
    first, noisy = ladder_runs
    hiding.set_hidden(submission=first, user=participant, hidden=True)
    jobs.refresh_statistics(test_set.pk)
    assert noisy.pk not in _public_runs(phase, test_set)
    assert not access.can_see_run_scores(participant, noisy, test_set)
    hiding.set_hidden(submission=first, user=participant, hidden=False)
    jobs.refresh_statistics(test_set.pk)
    assert _public_runs(phase, test_set) == {first.pk}


def test_compare_and_significance_refuse_unreleased_runs(
    ladder_runs, phase, test_set, outsider
):
    first, noisy = ladder_runs
    page = compare.compare_page(
        phase=phase, run_ids=[str(first.pk), str(noisy.pk)], user=outsider
    )
    [public] = [t for t in page["tables"] if t.test_set.pk == test_set.pk]
    assert [r.visible for r in public.rows] == [True, False]
    with pytest.raises(statistics.NotComparable):
        statistics.compare_runs(
            test_set=test_set, run_a=first.pk, run_b=noisy.pk, user=outsider
        )


def test_replaced_gold_replays_the_ladder_in_submission_order(
    task, phase, test_set, bucc_demo, participant, team
):
    """On main, after a gold replacement only runs on the new gold counted: the
    team's next, worse run was "first", released, and replaced its much better run
    on the public board; intervals and bands dropped the old runs."""
    PhaseRanking.objects.create(phase=phase, ladder=True)
    runs = {method: files["test"] for _, method, files in bucc_demo.runs}
    good = scored(phase, participant, runs["dictionary"], "good", figures=False)
    jobs.refresh_statistics(test_set.pk)
    gold = bucc_demo.test_sets[0].gold["gold"]
    version = test_set.gold_version
    datasets.store_file(test_set=test_set, role="gold", filename="g.tsv", data=gold)
    test_set.refresh_from_db()
    assert test_set.gold_version == version + 1
    good.refresh_from_db()
    assert good.status == Submission.Status.QUEUED  # rescored on the new gold
    worse = scored(phase, participant, runs["roots only"], "worse", figures=False)
    jobs.refresh_statistics(test_set.pk)
    # The better run is not rescored yet: the later one waits for it.
    assert _public_runs(phase, test_set) == set()
    rescored(good, figures=False)
    jobs.refresh_statistics(test_set.pk)
    assert _public_runs(phase, test_set) == {good.pk}
    data = test_set.statistics.data
    assert set(data["intervals"]) == {str(good.pk), str(worse.pk)}


def test_settings_saved_anywhere_reach_the_cached_boards(
    ladder_runs, phase, test_set, private_test_set
):
    """On main, saving a test set, a phase or the ranking settings (the admin, the
    organiser pages) bumped no board version: the old board was served for 24 h."""
    first, noisy = ladder_runs
    private_test_set.revealed = True
    private_test_set.save()  # as the admin form does
    assert [
        r.submission_id for r in leaderboard.board(test_set=private_test_set).rows
    ] == [first.pk]
    phase.max_final_runs = 0  # every run counts: the best private score
    phase.save()
    assert [
        r.submission_id for r in leaderboard.board(test_set=private_test_set).rows
    ] == [noisy.pk]
    assert leaderboard.board(test_set=test_set).ladder
    ranking = PhaseRanking.objects.get(phase=phase)
    ranking.ladder = False
    ranking.save()
    board = leaderboard.board(test_set=test_set)
    assert not board.ladder and [r.submission_id for r in board.rows] == [noisy.pk]


def test_the_anonymous_page_follows_gold_release(task, phase, test_set):
    """On main the anonymous page cache's key ignored gold release (stale 5 min)."""
    renders = iter([b"before", b"after"])

    def page() -> bytes:
        phase.task.refresh_from_db()
        return board_pages.anonymous_leaderboard(
            phase=phase, test_sets=[test_set], path="/lb/", render=lambda: next(renders)
        )

    assert page() == b"before" and page() == b"before"
    datasets.release_gold(task=task)
    assert page() == b"after"


def test_a_scored_run_waits_for_the_runs_submitted_before_it(
    task, phase, test_set, bucc_demo, participant, team
):
    """Runs scored out of order: a later run is not decided (nor released) before
    an earlier one, so no decision is ever taken back."""
    from evalhub.competitions.services.runs import submit

    PhaseRanking.objects.create(phase=phase, ladder=True)
    runs = {method: files["test"] for _, method, files in bucc_demo.runs}
    pending = submit.submit_run(
        phase=phase,
        user=participant,
        filename="run.tsv",
        data=runs["dictionary"],
        method_name="pending",
    )
    later = scored(phase, participant, runs["roots only"], "later", figures=False)
    jobs.refresh_statistics(test_set.pk)
    assert _public_runs(phase, test_set) == set()
    rescored(pending, figures=False)
    jobs.refresh_statistics(test_set.pk)
    assert _public_runs(phase, test_set) == {pending.pk}
    assert later.pk not in _public_runs(phase, test_set)
