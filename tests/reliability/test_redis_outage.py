"""Redis (broker and cache) goes away while runs finish and while refreshes wait
(issue 31), with a real private redis-server stopped and restarted empty:

- stopped as a scored run's after-commit work begins: the team is still told the
  run was scored, and its statistics and analyses are refreshed once Redis is back;
- stopped while a refresh waits to run: the worker survives (it holds no delayed
  job: the refresh is a row in the database that beat sends when it is due; kombu
  5.7 could not give a delayed job back to a dead broker and the worker exited),
  and the refresh runs after the restart."""

from __future__ import annotations

import re
import time

import pytest

from evalhub.competitions.models import Refresh, Submission, TaskArtefact
from evalhub.competitions.services.boards import refreshes
from evalhub.competitions.services.runs import scoring, submit
from evalhub.notifications.models import Notification
from evalhub.rankings.models import TestSetStatistics
from tests.reliability.conftest import wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _alive(cluster) -> bool:  # noqa: ANN001
    for key, proc in cluster.procs.items():
        assert proc.poll() is None, f"{key} exited:\n{cluster.log(key)[-3000:]}"
    return True


def _refreshed(test_set, sub: Submission) -> bool:  # noqa: ANN001
    stats = (
        TestSetStatistics.objects.filter(test_set=test_set)
        .values_list("data", flat=True)
        .first()
    )
    drawn = TaskArtefact.objects.filter(test_set=test_set, key="analysis").values_list(
        "runs", flat=True
    )
    analysed = any(sub.pk in {int(pk) for pk in runs} for runs in drawn)
    return str(sub.pk) in (stats or {}).get("intervals", {}) and analysed


@pytest.fixture
def cache_on(settings, broker, isolated_storage):  # noqa: ANN001, ANN201
    """This process's cache on the private Redis too (the broker already is)."""
    settings.CACHES = {
        "default": {
            **settings.CACHES["default"],
            "LOCATION": broker.url,
            "KEY_PREFIX": isolated_storage["cache_prefix"],
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
    return broker


def test_redis_stopped_after_a_run_commits_loses_no_notification_nor_refresh(
    cache_on, cluster, monkeypatch, phase, test_set, participant, team, demo_run
):
    sub = submit.submit_run(
        phase=phase, user=participant, filename="run.tsv", data=demo_run,
        method_name="m",
    )  # fmt: skip
    real = scoring._after_scored  # noqa: SLF001

    def redis_dies_first(test_set_id: int):  # noqa: ANN202
        def run() -> None:
            cache_on.kill()  # the run is committed; its after-commit work begins
            real(test_set_id)()

        return run

    monkeypatch.setattr(scoring, "_after_scored", redis_dies_first)
    assert scoring.score_submission(submission_id=sub.pk) == "scored"
    assert not cache_on.ping()
    # The team was told, and both refreshes wait in the database.
    assert Notification.objects.filter(
        recipient=participant, key__startswith=f"run:{sub.pk}:scored"
    ).exists()
    assert set(
        Refresh.objects.filter(test_set=test_set, due_at__isnull=False).values_list(
            "kind", flat=True
        )
    ) == {refreshes.STATISTICS, refreshes.ANALYSES}
    cache_on.start()  # same port, empty: no job, no marker survived
    cluster.wait_ready(cluster.worker("w", beat=True))
    wait_for(
        lambda: _alive(cluster) and _refreshed(test_set, sub),
        "the statistics and analyses refreshes after Redis came back",
        timeout=120,
    )


def test_a_worker_survives_redis_going_away_while_a_refresh_waits(
    cluster, broker, phase, test_set, participant, team, demo_run
):
    # Beat in the worker: the refresh is sent by it once due, and the worker
    # survives the outage with it.
    name = cluster.worker("w", beat=True, EVALHUB_REFRESH_DELAY="20")
    cluster.wait_ready(name)
    sub = submit.submit_run(
        phase=phase, user=participant, filename="run.tsv", data=demo_run,
        method_name="m",
    )  # fmt: skip

    def scored() -> bool:
        # The job's end, after its commit and the work after it: the refreshes
        # have been asked for (before issue 31: sent as delayed jobs, which the
        # worker received and held).
        sub.refresh_from_db()
        ended = re.search(
            r"jobs\.score_submission\[[^\]]+\] succeeded", cluster.log("w")
        )
        return _alive(cluster) and sub.status == Submission.Status.SCORED and ended

    wait_for(scored, "the scoring job to end")
    # Its refreshes are due 20 s after it was scored; Redis goes away meanwhile.
    assert not _refreshed(test_set, sub)
    broker.kill()
    time.sleep(4)
    assert _alive(cluster)
    broker.start()  # empty
    wait_for(
        lambda: _alive(cluster) and _refreshed(test_set, sub),
        "the waiting refreshes to run after Redis came back",
        timeout=120,
    )
