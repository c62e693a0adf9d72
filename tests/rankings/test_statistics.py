"""Intervals, pairwise significance, rank bands and the Ladder on the platform (the
BUCC demo runs scored by the platform's scorer, real database and cache; the full
scoring job with a real worker is covered by the e2e test)."""

from __future__ import annotations

import pytest

from evalhub.competitions.models import Score, Submission
from evalhub.competitions.services import teams
from evalhub.competitions.services.boards import leaderboard
from evalhub.rankings import jobs
from evalhub.rankings.models import PhaseRanking, TestSetStatistics
from evalhub.rankings.services import exports, statistics
from tests.rankings.helpers import scored as _scored

pytestmark = pytest.mark.django_db


def _runs(bucc_demo) -> dict[str, bytes]:  # noqa: ANN001
    return {method: files["test"] for _, method, files in bucc_demo.runs}


@pytest.fixture
def three_teams(task, phase, test_set, bucc_demo, django_user_model):  # noqa: ANN001, ANN201
    runs = _runs(bucc_demo)
    subs = []
    for i, (method, data) in enumerate(runs.items()):
        user = django_user_model.objects.create_user(f"t{i}")
        teams.register(task=task, user=user, new_team_name=f"Team_{i} & co")
        subs.append(_scored(phase, user, data, method, figures=False))
    return subs


def _ap(sub: Submission, test_set) -> float:  # noqa: ANN001
    return Score.objects.get(submission=sub, test_set=test_set, metric="ap").value


def test_refresh_stores_intervals_matrix_and_bands(three_teams, test_set):
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    row = TestSetStatistics.objects.get(test_set=test_set)
    data = row.data
    assert set(data["intervals"]) == {str(s.pk) for s in three_teams}
    for sub in three_teams:
        iv = data["intervals"][str(sub.pk)]
        assert iv["value"] == pytest.approx(_ap(sub, test_set), abs=1e-12)
        assert iv["low"] <= iv["value"] <= iv["high"]
        assert iv["samples"] == 1000 and iv["seed"] == 0
    board = leaderboard.compute(test_set=test_set)
    assert data["matrix"]["runs"] == [r.submission_id for r in board.rows]
    # The three demo systems are far apart: three bands, all p-values tiny.
    assert [r.band for r in board.rows] == [1, 2, 3]
    pairs = statistics.with_pairs(test_set=test_set, matrix=data["matrix"])
    assert pairs["p_randomisation"][0][2] < 0.01
    assert board.rows[0].interval.startswith(f"{board.rows[0].primary:.4f} ± 0.0")
    assert "bootstrap:1000|seed:0" in board.signature
    assert row.chart_svg.read().lstrip().startswith(b"<?xml")


def test_refresh_twice_is_a_noop_and_deterministic(three_teams, test_set):
    jobs.refresh_statistics(test_set.pk)
    first = TestSetStatistics.objects.get(test_set=test_set)
    jobs.refresh_statistics(test_set.pk)
    second = TestSetStatistics.objects.get(test_set=test_set)
    assert TestSetStatistics.objects.count() == 1
    assert (first.data, first.signature) == (second.data, second.signature)


def test_another_seed_other_numbers(three_teams, test_set, phase):
    jobs.refresh_statistics(test_set.pk)
    before = TestSetStatistics.objects.get(test_set=test_set).data["intervals"]
    PhaseRanking.objects.create(phase=phase, seed=7, bootstrap_samples=500)
    jobs.refresh_statistics(test_set.pk)
    row = TestSetStatistics.objects.get(test_set=test_set)
    assert row.data["intervals"] != before
    assert "bootstrap:500|seed:7" in row.signature


def test_board_without_statistics_has_no_intervals(three_teams, test_set):
    board = leaderboard.compute(test_set=test_set)
    assert [r.interval for r in board.rows] == ["", "", ""]
    assert [r.band for r in board.rows] == [None, None, None]
    assert board.signature == ""


def test_a_scored_run_asks_for_a_refresh_per_test_set(
    django_capture_on_commit_callbacks,
    submit_run,
    demo_run,
    test_set,
    private_test_set,
):
    from evalhub.competitions.services.runs import scoring

    sub = submit_run(demo_run)
    with django_capture_on_commit_callbacks(execute=True):
        assert scoring.score_submission(submission_id=sub.pk) == "scored"
    assert _due() == [test_set.pk, private_test_set.pk]
    # The refresh itself invalidates the board without asking for another one.
    with django_capture_on_commit_callbacks(execute=True):
        assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    assert _due() == [private_test_set.pk]


def _due() -> list[int]:
    """Test sets whose statistics refresh is due (services/boards/refreshes.py)."""
    from evalhub.competitions.models import Refresh

    return sorted(
        Refresh.objects.filter(kind="statistics", due_at__isnull=False).values_list(
            "test_set_id", flat=True
        )
    )


def _noisy(run: bytes, gold: bytes) -> bytes:
    """The same run with one gold pair moved up a rank early in the list and one
    moved down a rank late in it: a slightly higher AP, from noise."""
    lines = run.decode().splitlines()
    gold_set = set(gold.decode().splitlines())
    up = next(
        i
        for i in range(len(lines) - 1)
        if lines[i] not in gold_set and lines[i + 1] in gold_set
    )
    down = next(
        i
        for i in range(len(lines) - 2, up + 1, -1)
        if lines[i] in gold_set and lines[i + 1] not in gold_set
    )
    for i in (up, down):
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
    return ("\n".join(lines) + "\n").encode()


def test_ladder_keeps_the_public_score_under_noisy_resubmissions(
    task, phase, test_set, private_test_set, bucc_demo, participant, team
):
    PhaseRanking.objects.create(phase=phase, ladder=True)
    runs = _runs(bucc_demo)
    base = runs["roots only"]
    first = _scored(phase, participant, base, "first", figures=False)
    noisy = _scored(
        phase,
        participant,
        _noisy(base, bucc_demo.test_sets[0].gold["gold"]),
        "noisy",
        figures=False,
    )
    assert _ap(noisy, test_set) > _ap(first, test_set)  # looks better...
    jobs.refresh_statistics(test_set.pk)
    jobs.refresh_statistics(private_test_set.pk)
    public = leaderboard.board(test_set=test_set)
    assert public.ladder
    assert [r.submission_id for r in public.rows] == [first.pk]  # ...but is noise
    assert public.rows[0].primary == _ap(first, test_set)
    # The private board is not the Ladder's, but its final-run fallback (the
    # best public score) counts only the public scores the Ladder released.
    private = leaderboard.board(test_set=private_test_set)
    assert not private.ladder
    assert [r.submission_id for r in private.rows] == [first.pk]

    better = _scored(phase, participant, runs["dictionary"], "better", figures=False)
    jobs.refresh_statistics(test_set.pk)
    public = leaderboard.board(test_set=test_set)
    assert [r.submission_id for r in public.rows] == [better.pk]
    steps = TestSetStatistics.objects.get(test_set=test_set).data["ladder"]["steps"]
    assert [(s["run"], s["released"]) for s in steps] == [
        (first.pk, True),
        (noisy.pk, False),
        (better.pk, True),
    ]


def test_without_ladder_the_best_run_is_shown(
    task, phase, test_set, bucc_demo, participant, team
):
    base = _runs(bucc_demo)["roots only"]
    first = _scored(phase, participant, base, "first", figures=False)
    noisy = _scored(
        phase,
        participant,
        _noisy(base, bucc_demo.test_sets[0].gold["gold"]),
        "noisy",
        figures=False,
    )
    jobs.refresh_statistics(test_set.pk)
    board = leaderboard.board(test_set=test_set)
    assert not board.ladder
    assert [r.submission_id for r in board.rows] == [noisy.pk]
    assert first.pk != noisy.pk


def test_latex_and_csv_exports(three_teams, test_set, organiser):
    jobs.refresh_statistics(test_set.pk)
    page = exports.significance(test_set=test_set, user=organiser)
    tex = exports.as_latex(page)
    assert r"\begin{tabular}{rllrrrr}" in tex
    assert r"Team\_0 \& co" in tex
    assert r"$\pm$" in tex and r"\textbf{\textless{}0.001}" in tex
    assert "bootstrap:1000" in tex
    assert r"\caption{Pairwise tests on test set Public: AP with" in tex
    rows = exports.as_csv(page).splitlines()
    assert rows[0].startswith("run_a,team_a,run_b,team_b,delta")
    assert len(rows) == 1 + 3
    assert exports.latex_escape("a_b%c#d") == r"a\_b\%c\#d"


def test_cached_reads_nothing_before_the_first_refresh(test_set):
    assert statistics.cached(test_set=test_set) == leaderboard.Statistics()


def test_admin_change_of_ranking_settings_refreshes_the_phase(
    client, organiser, phase, test_set, django_capture_on_commit_callbacks
):
    from django.urls import reverse

    organiser.is_superuser = True
    organiser.save()
    client.force_login(organiser)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("admin:rankings_phaseranking_add"),
            {
                "phase": phase.pk,
                "ladder": "on",
                "ladder_margin": "1.0",
                "bootstrap_samples": "1000",
                "seed": "0",
                "alpha": "0.05",
            },
        )
    assert response.status_code == 302
    assert PhaseRanking.objects.get(phase=phase).ladder
    assert _due() == [test_set.pk]
