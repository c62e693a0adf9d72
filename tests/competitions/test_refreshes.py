"""Coalesced refreshes (services/refreshes.py): a burst of scored runs sends a
bounded number of statistics/analyses jobs, a refresh never waits on another, and
the last refresh sees every run."""

from __future__ import annotations

import pytest

from evalhub.competitions.services.boards import refreshes
from evalhub.rankings import jobs as ranking_jobs
from evalhub.rankings.models import TestSetStatistics
from tests.rankings.helpers import scored

pytestmark = pytest.mark.django_db
STATS = refreshes.STATISTICS


@pytest.fixture
def sent(monkeypatch, isolated_storage):  # noqa: ANN001, ANN201
    calls: list[tuple[str, int, float]] = []
    monkeypatch.setattr(
        refreshes,
        "_sender",
        lambda kind: lambda pk, delay: calls.append((kind, pk, delay)),
    )
    return calls


def test_a_burst_of_requests_sends_one_delayed_job(sent, settings):
    settings.REFRESH_DELAY = 7
    results = [refreshes.request(kind=STATS, test_set_id=41) for _ in range(50)]
    assert results == [True] + [False] * 49
    assert sent == [(STATS, 41, 7)]
    # Other test sets and the other kind are independent.
    assert refreshes.request(kind=STATS, test_set_id=42)
    assert refreshes.request(kind=refreshes.ANALYSES, test_set_id=41)
    assert len(sent) == 3


def test_a_request_after_the_refresh_began_sends_a_new_job(sent):
    assert refreshes.request(kind=STATS, test_set_id=5)
    with refreshes.turn(kind=STATS, test_set_id=5) as mine:
        assert mine
        # A run scored while the refresh reads the database: it needs one more.
        assert refreshes.request(kind=STATS, test_set_id=5)
        assert not refreshes.request(kind=STATS, test_set_id=5)
    assert len(sent) == 2


def test_a_refresh_never_waits_on_a_running_one(sent):
    with refreshes.turn(kind=STATS, test_set_id=9) as first:
        assert first
        with refreshes.turn(kind=STATS, test_set_id=9) as second:
            assert not second
    # The one that gave way asked for a later refresh.
    assert sent == [(STATS, 9, pytest.approx(sent[0][2]))]
    with refreshes.turn(kind=STATS, test_set_id=9) as third:
        assert third


def test_the_broker_down_leaves_no_marker(monkeypatch, isolated_storage):
    def down(kind):  # noqa: ANN001, ANN202
        def send(pk, delay):  # noqa: ANN001, ANN202
            raise ConnectionError("broker down")

        return send

    monkeypatch.setattr(refreshes, "_sender", down)
    assert not refreshes.request(kind=STATS, test_set_id=3)
    monkeypatch.setattr(refreshes, "_sender", lambda kind: lambda pk, delay: None)
    assert refreshes.request(kind=STATS, test_set_id=3)


def test_the_last_refresh_of_a_burst_sees_every_run(
    sent,
    phase,
    test_set,
    participant,
    team,
    bucc_demo,
    django_capture_on_commit_callbacks,
):
    from evalhub.competitions.services.boards import boardcache, leaderboard

    phase.daily_limit = phase.total_limit = 100
    phase.save(update_fields=["daily_limit", "total_limit"])
    runs = [files["test"] for _, _, files in bucc_demo.runs]
    subs = []
    for i in range(5):
        subs.append(scored(phase, participant, runs[i % len(runs)], f"m{i}"))
        with django_capture_on_commit_callbacks(execute=True):
            boardcache.invalidate(test_set_id=test_set.pk)  # as a scored run does
    assert [(k, pk) for k, pk, _ in sent] == [(STATS, test_set.pk)]
    # The job runs twice (a redelivered message): the second is a no-op refresh.
    assert ranking_jobs.refresh_statistics(test_set.pk) == "refreshed"
    assert ranking_jobs.refresh_statistics(test_set.pk) == "refreshed"
    data = TestSetStatistics.objects.get(test_set=test_set).data
    assert sorted(int(pk) for pk in data["intervals"]) == sorted(s.pk for s in subs)
    board = leaderboard.board(test_set=test_set)
    assert board.signature and all(r.interval for r in board.rows)


def test_slow_refreshes_back_off(sent, settings, monkeypatch):
    settings.REFRESH_DELAY, settings.REFRESH_BACKOFF = 5, 4
    clock = iter([100.0, 130.0])  # the refresh takes 30 s
    monkeypatch.setattr(refreshes, "_clock", lambda: next(clock))
    with refreshes.turn(kind=STATS, test_set_id=8) as mine:
        assert mine
    assert refreshes.request(kind=STATS, test_set_id=8)
    assert sent == [(STATS, 8, 120.0)]
    # A fast test set keeps the short delay.
    assert refreshes.delay(kind=STATS, test_set_id=9) == 5
