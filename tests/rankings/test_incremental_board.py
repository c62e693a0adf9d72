"""What the incremental statistics refresh costs on a board of eight runs: a new
run only its own share and its pairs; new settings every run again, with progress
on the dashboard; past its time budget the work spread over jobs; new gold every
run again on the new gold; each time with the full recompute's numbers.

The board (``incremental.submit_all``: four teams, two runs each, the statistics
job after every scored run) is built once for the module (``shared_world``); each
test changes it in its own transaction, rolled back after it."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evalhub.competitions.models import Submission
from evalhub.competitions.services import teams
from evalhub.competitions.services.data import datasets
from evalhub.rankings import jobs
from evalhub.rankings.models import (
    PairStatistics,
    PhaseRanking,
    RunStatistics,
    TestSetStatistics,
)
from evalhub.rankings.services import runstats
from tasks.common import resampling as rs
from tests import demo_world, shared_world
from tests.demo_world import (  # noqa: F401 - fixtures: the world's rows
    isolated_storage_row,
    organiser_row,
    phase_row,
    task_row,
    test_set_row,
)
from tests.rankings import incremental
from tests.rankings.helpers import rescored, scored

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker, tmp_path_factory):  # noqa: ANN001, ANN201
    """The conftest's organiser, task, phase and public test set (no team, no
    private test set, as those fixtures build them) and the eight scored runs."""

    def build() -> dict[str, object]:
        c = demo_world.public_campaign()
        runs = incremental.submit_all(c.task, c.phase, c.demo, c.users, c.test_set)
        return {**c.keys(), "runs": [run.pk for run in runs]}

    folder = tmp_path_factory.mktemp("incremental") / "storage"
    yield from shared_world.kept(django_db_blocker, folder, build)


@pytest.fixture
def runs(world, isolated_storage):  # noqa: ANN001, ANN201
    return [Submission.objects.get(pk=pk) for pk in world.value["runs"]]


def test_a_new_run_costs_its_own_share_and_its_pairs(
    task, phase, test_set, bucc_demo, django_user_model, runs, monkeypatch
):
    computed: list[int] = []
    real = rs.run_arrays

    def counting(stats, **kwargs):  # noqa: ANN001, ANN003, ANN202
        computed.append(len(stats))
        return real(stats, **kwargs)

    monkeypatch.setattr(rs, "run_arrays", counting)
    user = django_user_model.objects.create_user("late")
    teams.register(task=task, user=user, new_team_name="Late")
    base = next(iter(bucc_demo.runs))[2]["test"]
    new = scored(phase, user, incremental.variant(base, 11), "late", figures=False)
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
    task, phase, test_set, organiser, client, runs, monkeypatch
):
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
    phase, test_set, runs, monkeypatch
):
    """Past its time budget a refresh stores its part, asks for another job and
    leaves the board's statistics as they were; the jobs together give the full
    recompute's numbers."""
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
    spread = incremental.snapshot(test_set)
    assert spread[0]["seed"] == 3

    monkeypatch.setattr(runstats, "BUDGET", 200.0)
    RunStatistics.objects.all().delete()
    PairStatistics.objects.all().delete()
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    assert incremental.snapshot(test_set) == spread


def test_replaced_gold_recomputes_every_run_on_the_new_gold(
    phase, test_set, bucc_demo, runs
):
    """New gold changes every key: the runs rescored on it get new shares and pairs
    (refreshed run by run as they are rescored), the old gold's pairs go once the
    boards show the new gold, and the numbers equal a full recompute."""
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
    run_by_run = incremental.snapshot(test_set)
    RunStatistics.objects.all().delete()
    PairStatistics.objects.all().delete()
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    assert incremental.snapshot(test_set) == run_by_run
