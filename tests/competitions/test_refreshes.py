"""Coalesced refreshes (services/boards/refreshes.py): a burst of scored runs makes
one refresh due per (kind, test set), beat's tick sends its job once (again only
if it was lost with the broker), a refresh never waits on another, and the last
refresh sees every run. The state is rows in the database, none in Redis."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from evalhub.competitions import jobs as core_jobs
from evalhub.competitions.models import Refresh
from evalhub.competitions.services.boards import refreshes
from evalhub.rankings import jobs as ranking_jobs
from evalhub.rankings.models import TestSetStatistics
from tests.rankings.helpers import scored

pytestmark = pytest.mark.django_db
STATS = refreshes.STATISTICS


@pytest.fixture
def sent(monkeypatch, isolated_storage):  # noqa: ANN001, ANN201
    """The jobs dispatch sends (not run): (kind, test set id)."""
    calls: list[tuple[str, int]] = []
    monkeypatch.setattr(
        refreshes, "_sender", lambda kind: lambda pk: calls.append((kind, pk))
    )
    return calls


@pytest.fixture
def ids(phase, bucc_demo):  # noqa: ANN001, ANN201
    """Primary keys of real test sets (the rows refer to them)."""
    from evalhub.competitions.models import TestSet

    return [
        TestSet.objects.create(phase=phase, slug=f"t{i}", name=f"T{i}").pk
        for i in range(3)
    ]


def _later(seconds: float) -> datetime:
    return timezone.now() + timedelta(seconds=seconds)


def test_a_burst_of_requests_makes_one_refresh_due_and_sends_it_once(
    sent, settings, ids
):
    settings.REFRESH_DELAY = 7
    a, b, _ = ids
    results = [refreshes.request(kind=STATS, test_set_id=a) for _ in range(50)]
    assert results == [True] + [False] * 49
    due = Refresh.objects.get(kind=STATS, test_set_id=a).due_at
    assert _later(6) < due < _later(8)
    assert refreshes.dispatch() == 0  # not due yet
    assert refreshes.dispatch(now=_later(8)) == 1
    assert refreshes.dispatch(now=_later(9)) == 0  # sent already
    assert sent == [(STATS, a)]
    # Other test sets and the other kind are independent.
    assert refreshes.request(kind=STATS, test_set_id=b)
    assert refreshes.request(kind=refreshes.ANALYSES, test_set_id=a)
    assert refreshes.dispatch(now=_later(8)) == 2
    assert sorted(sent) == sorted([(STATS, a), (STATS, b), (refreshes.ANALYSES, a)])


def test_a_request_after_the_refresh_began_makes_it_due_again(sent, ids):
    pk = ids[0]
    assert refreshes.request(kind=STATS, test_set_id=pk)
    refreshes.dispatch(now=_later(60))
    with refreshes.turn(kind=STATS, test_set_id=pk) as mine:
        assert mine
        # A run scored while the refresh reads the database: it needs one more,
        # sent once this one has ended.
        assert refreshes.request(kind=STATS, test_set_id=pk)
        assert not refreshes.request(kind=STATS, test_set_id=pk)
        assert refreshes.dispatch(now=_later(60)) == 0
    assert refreshes.dispatch(now=_later(60)) == 1
    assert sent == [(STATS, pk), (STATS, pk)]


def test_a_refresh_never_waits_on_a_running_one(sent, ids):
    pk = ids[0]
    with refreshes.turn(kind=STATS, test_set_id=pk) as first:
        assert first
        with refreshes.turn(kind=STATS, test_set_id=pk) as second:
            assert not second
    # The one that gave way made a later refresh due.
    assert Refresh.objects.get(kind=STATS, test_set_id=pk).due_at is not None
    assert refreshes.dispatch(now=_later(60)) == 1
    with refreshes.turn(kind=STATS, test_set_id=pk) as third:
        assert third


def test_a_refresh_due_waits_for_the_broker(monkeypatch, isolated_storage, ids):
    pk = ids[0]

    def down(kind):  # noqa: ANN001, ANN202
        def send(pk):  # noqa: ANN001, ANN202
            raise ConnectionError("broker down")

        return send

    assert refreshes.request(kind=STATS, test_set_id=pk)
    monkeypatch.setattr(refreshes, "_sender", down)
    assert refreshes.dispatch(now=_later(60)) == 0
    row = Refresh.objects.get(kind=STATS, test_set_id=pk)
    assert row.due_at is not None and row.sent_at is None
    monkeypatch.setattr(refreshes, "_sender", lambda kind: lambda pk: None)
    assert refreshes.dispatch(now=_later(60)) == 1


def test_a_job_lost_with_the_broker_is_sent_again(sent, settings, ids):
    settings.QUEUED_REENQUEUE_AFTER = 300
    pk = ids[0]
    refreshes.request(kind=STATS, test_set_id=pk)
    assert refreshes.dispatch(now=_later(10)) == 1
    assert refreshes.dispatch(now=_later(200)) == 0  # maybe still in the queue
    assert refreshes.dispatch(now=_later(400)) == 1  # lost: a restarted Redis
    assert sent == [(STATS, pk), (STATS, pk)]


def test_the_dispatch_job_twice_sends_each_refresh_once(sent, settings, ids):
    settings.REFRESH_DELAY = 0
    refreshes.request(kind=STATS, test_set_id=ids[0])
    assert core_jobs.dispatch_refreshes() == 1
    assert core_jobs.dispatch_refreshes() == 0
    assert sent == [(STATS, ids[0])]


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
        run = runs[i % len(runs)]
        subs.append(scored(phase, participant, run, f"m{i}", figures=False))
        with django_capture_on_commit_callbacks(execute=True):
            boardcache.invalidate(test_set_id=test_set.pk)  # as a scored run does
    refreshes.dispatch(now=_later(60))
    assert sent == [(STATS, test_set.pk)]
    # The job runs twice (a redelivered message): the second is a no-op refresh.
    assert ranking_jobs.refresh_statistics(test_set.pk) == "refreshed"
    assert ranking_jobs.refresh_statistics(test_set.pk) == "refreshed"
    data = TestSetStatistics.objects.get(test_set=test_set).data
    assert sorted(int(pk) for pk in data["intervals"]) == sorted(s.pk for s in subs)
    board = leaderboard.board(test_set=test_set)
    assert board.signature and all(r.interval for r in board.rows)


def test_slow_refreshes_back_off(sent, settings, monkeypatch, ids):
    settings.REFRESH_DELAY, settings.REFRESH_BACKOFF = 5, 4
    slow, fast, _ = ids
    clock = iter([100.0, 130.0])  # the refresh takes 30 s
    monkeypatch.setattr(refreshes, "_clock", lambda: next(clock))
    with refreshes.turn(kind=STATS, test_set_id=slow) as mine:
        assert mine
    assert refreshes.delay(kind=STATS, test_set_id=slow) == 120.0
    assert refreshes.request(kind=STATS, test_set_id=slow)
    due = Refresh.objects.get(kind=STATS, test_set_id=slow).due_at
    assert _later(119) < due < _later(121)
    # A fast test set keeps the short delay.
    assert refreshes.delay(kind=STATS, test_set_id=fast) == 5


def test_a_refresh_that_fails_midway_is_due_again(sent, monkeypatch, ids):
    """Redis went away while the statistics job ran (its claim had cleared the
    row's *due*): the row is due again, so the runs it was to show are not left
    waiting for the next change (found by tests/reliability/test_redis_outage.py)."""
    import redis

    from evalhub.rankings.services import statistics

    pk = ids[0]
    assert refreshes.request(kind=STATS, test_set_id=pk)
    refreshes.dispatch(now=_later(60))

    def outage(test_set_id: int) -> str:
        raise redis.exceptions.ConnectionError("Connection refused")

    monkeypatch.setattr(statistics, "_refresh", outage)
    with pytest.raises(redis.exceptions.ConnectionError):
        ranking_jobs.refresh_statistics(pk)
    row = Refresh.objects.get(kind=STATS, test_set_id=pk)
    assert row.due_at is not None and row.started_at is None
    assert refreshes.dispatch(now=_later(120)) == 1
    assert sent == [(STATS, pk), (STATS, pk)]
