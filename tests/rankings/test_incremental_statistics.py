"""The statistics refresh grows linearly: a new run adds its own share and its pairs
with the other runs, and the numbers are exactly those of the full recompute (every
run and pair computed again) and of the offline full matrix (``rs.pairwise``)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evalhub.competitions.models import Evaluation
from evalhub.competitions.services import teams
from evalhub.competitions.services.data import datasets
from evalhub.rankings import jobs
from evalhub.rankings.models import (
    PairStatistics,
    PhaseRanking,
    RunStatistics,
    TestSetStatistics,
)
from evalhub.rankings.services import pairs, runstats, statistics
from tasks.base import ScoreReport
from tasks.common import resampling as rs
from tests.rankings.helpers import rescored, scored

pytestmark = pytest.mark.django_db

TEAMS = 4


def _variant(data: bytes, k: int) -> bytes:
    """The run with every (k+2)-th pair moved one rank down: a distinct run close
    to the original (near ties make bands and the Ladder non-trivial)."""
    lines = data.decode("utf-8").splitlines()
    for i in range(k % 3, len(lines) - 1, k + 2):
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
    return ("\n".join(lines) + "\n").encode("utf-8")


def _submit_all(task, phase, bucc_demo, django_user_model, test_set):  # noqa: ANN001, ANN202
    """TEAMS teams x 2 runs, the statistics job after every scored run."""
    bases = [files["test"] for _, _, files in bucc_demo.runs]
    runs = []
    users = []
    for i in range(TEAMS):
        user = django_user_model.objects.create_user(f"inc{i}")
        teams.register(task=task, user=user, new_team_name=f"Team {i}")
        users.append(user)
    for round_ in range(2):
        for i, user in enumerate(users):
            data = _variant(bases[(i + round_) % len(bases)], i + 3 * round_)
            runs.append(scored(phase, user, data, f"m{i}-{round_}", figures=False))
            assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    return runs


def _snapshot(test_set):  # noqa: ANN001, ANN202
    row = TestSetStatistics.objects.get(test_set=test_set)
    matrix = statistics.matrix_of(row.data, None)
    return (
        row.data,
        row.signature,
        statistics.with_pairs(test_set=test_set, matrix=matrix),
    )


@pytest.mark.parametrize("ladder", [False, True])
def test_run_by_run_equals_the_full_recompute(
    task, phase, test_set, bucc_demo, django_user_model, ladder
):
    PhaseRanking.objects.create(phase=phase, ladder=ladder)
    runs = _submit_all(task, phase, bucc_demo, django_user_model, test_set)
    data, signature, stored = _snapshot(test_set)
    assert len(data["intervals"]) == len(runs)
    assert PairStatistics.objects.filter(test_set=test_set).count() == (
        len(runs) * (len(runs) - 1) // 2
    )

    # The full recompute: nothing stored, every share and pair computed again.
    RunStatistics.objects.all().delete()
    PairStatistics.objects.all().delete()
    TestSetStatistics.objects.all().delete()
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    assert _snapshot(test_set) == (data, signature, stored)

    # And the offline full matrix over the board's runs (``evalhub compare``).
    task_type = task.type
    board = data["matrix"]["runs"]
    details = {
        ev.submission_id: ev
        for ev in Evaluation.objects.filter(test_set=test_set, submission_id__in=board)
    }
    items = [
        task_type.item_statistics(
            ScoreReport(
                metrics={}, payload=details[pk].payload, detail=details[pk].detail
            )
        )
        for pk in board
    ]
    full = rs.pairwise(items)
    assert stored["delta"] == pairs._rounded(full.delta)
    assert stored["p_bootstrap"] == pairs._rounded(full.p_bootstrap)
    assert stored["p_randomisation"] == pairs._rounded(full.p_randomisation)
    assert stored["exact"] == full.exact
    assert data["matrix"]["values"] == list(full.values)
    assert data["matrix"]["bands"] == rs.rank_bands(full.values, full.p_randomisation)
    intervals = rs.bootstrap_intervals(items)
    assert [data["intervals"][str(pk)] for pk in board] == [
        iv.to_json() for iv in intervals
    ]


def test_a_new_run_costs_its_own_share_and_its_pairs(
    task, phase, test_set, bucc_demo, django_user_model, monkeypatch
):
    runs = _submit_all(task, phase, bucc_demo, django_user_model, test_set)
    computed: list[int] = []
    real = rs.run_arrays

    def counting(stats, **kwargs):  # noqa: ANN001, ANN003, ANN202
        computed.append(len(stats))
        return real(stats, **kwargs)

    monkeypatch.setattr(rs, "run_arrays", counting)
    user = django_user_model.objects.create_user("late")
    teams.register(task=task, user=user, new_team_name="Late")
    base = next(iter(bucc_demo.runs))[2]["test"]
    new = scored(phase, user, _variant(base, 11), "late", figures=False)
    before = PairStatistics.objects.filter(test_set=test_set).count()
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    assert computed == [1]  # the new run's share only
    added = PairStatistics.objects.filter(test_set=test_set).count() - before
    assert added == len(runs)  # its pairs with every other run
    assert all(
        new.pk in pair
        for pair in PairStatistics.objects.filter(test_set=test_set)
        .order_by("-pk")[:added]
        .values_list("run_a_id", "run_b_id")
    )
    computed.clear()
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    assert computed == []  # nothing new: nothing computed


def test_new_settings_recompute_every_run_with_progress_on_the_dashboard(
    task, phase, test_set, bucc_demo, django_user_model, organiser, client, monkeypatch
):
    runs = _submit_all(task, phase, bucc_demo, django_user_model, test_set)
    before = TestSetStatistics.objects.get(test_set=test_set).data["intervals"]
    client.force_login(organiser)
    url = reverse("competitions:task-dashboard", args=[task.slug])
    pages: list[str] = []
    real = rs.run_arrays

    def watching(stats, **kwargs):  # noqa: ANN001, ANN003, ANN202
        pages.append(client.get(url).content.decode())
        return real(stats, **kwargs)

    monkeypatch.setattr(rs, "run_arrays", watching)
    monkeypatch.setattr(runstats, "BATCH", 2)
    PhaseRanking.objects.create(phase=phase, seed=5, bootstrap_samples=400)
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    assert len(pages) == len(runs) // 2
    assert "Statistics being recomputed" not in pages[0]
    steps = 2 * len(runs)  # each run's share, then its pairs
    assert f"Public: 2 of {steps} steps" in pages[1]
    assert f"Public: 6 of {steps} steps (37 %)" in pages[3]
    after = client.get(url).content.decode()
    assert "Statistics being recomputed" not in after
    data = TestSetStatistics.objects.get(test_set=test_set).data
    assert data["intervals"] != before and data["seed"] == 5
    keys = set(RunStatistics.objects.values_list("key", flat=True))
    assert keys and all(
        k.startswith(f"g{test_set.gold_version}:b400:s5:") for k in keys
    )
    assert set(PairStatistics.objects.values_list("key", flat=True)) == {
        runstats.settings_key(test_set, PhaseRanking.for_phase(phase))
    }


def test_a_long_recompute_is_spread_over_jobs_and_ends_with_the_same_numbers(
    task, phase, test_set, bucc_demo, django_user_model, monkeypatch
):
    """Past its time budget a refresh stores its part, asks for another job and
    leaves the board's statistics as they were; the jobs together give the full
    recompute's numbers."""
    _submit_all(task, phase, bucc_demo, django_user_model, test_set)
    PhaseRanking.objects.create(phase=phase, seed=3)
    shown = TestSetStatistics.objects.get(test_set=test_set).data
    monkeypatch.setattr(runstats, "BUDGET", 0.0)
    monkeypatch.setattr(runstats, "BATCH", 2)
    results = []
    while not results or results[-1] == "continued":
        results.append(jobs.refresh_statistics(test_set.pk))
        row = TestSetStatistics.objects.get(test_set=test_set)
        if results[-1] == "continued":
            assert row.data == shown  # the old numbers until the new ones are all in
            assert 0 < row.progress_done < row.progress_total
        assert len(results) < 40
    assert results[-1] == "refreshed" and len(results) > 2
    assert (row.progress_done, row.progress_total) == (0, 0)
    spread = _snapshot(test_set)
    assert spread[0]["seed"] == 3

    monkeypatch.setattr(runstats, "BUDGET", 200.0)
    RunStatistics.objects.all().delete()
    PairStatistics.objects.all().delete()
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    assert _snapshot(test_set) == spread


def test_replaced_gold_recomputes_every_run_on_the_new_gold(
    task, phase, test_set, bucc_demo, django_user_model
):
    """New gold changes every key: the runs rescored on it get new shares and pairs
    (refreshed run by run as they are rescored), the old gold's pairs go once the
    boards show the new gold, and the numbers equal a full recompute."""
    runs = _submit_all(task, phase, bucc_demo, django_user_model, test_set)
    old_key = runstats.settings_key(test_set, PhaseRanking.for_phase(phase))
    # Another gold: the demo's with its last pair left out.
    gold = bucc_demo.test_sets[0].gold["gold"].decode("utf-8").splitlines()
    datasets.store_file(
        test_set=test_set,
        role="gold",
        filename="g.tsv",
        data=("\n".join(gold[:-1]) + "\n").encode("utf-8"),
    )
    test_set.refresh_from_db()
    new_key = runstats.settings_key(test_set, PhaseRanking.for_phase(phase))
    assert new_key != old_key
    for run in runs:
        rescored(run, figures=False)
        assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    assert set(PairStatistics.objects.values_list("key", flat=True)) == {new_key}
    assert all(
        k.startswith(f"{new_key}:")
        for k in RunStatistics.objects.values_list("key", flat=True)
    )
    incremental = _snapshot(test_set)
    RunStatistics.objects.all().delete()
    PairStatistics.objects.all().delete()
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    assert _snapshot(test_set) == incremental
