"""A change to a busy board is drawn once, not once per waiting viewer or worker
(found with ``bench/traffic.py --board-runs 1000``: after each change tens of
requests drew the same 1,000-row board at once, and pages waited seconds):

- two workers rendering a board ahead at once take turns, so each renders the
  version its own bump makes (both used to render the same next version, and
  the second bump made one nobody had rendered);
- requests missing the same board wait for the one computing it;
- a page built while another request renders the new boards (and so around the
  previous ones) is not kept as the page of the new version."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection

from evalhub.competitions.models import BoardVersion
from evalhub.competitions.services.boards import boardcache, leaderboard
from evalhub.competitions.services.runs import scoring


def _stored(test_set_id: int) -> int:
    return (
        BoardVersion.objects.filter(test_set_id=test_set_id)
        .values_list("version", flat=True)
        .first()
        or 0
    )


def _in_threads(count: int, work) -> None:  # noqa: ANN001
    """``work()`` in ``count`` threads started together, each on its own database
    connection (as two workers or two web threads)."""
    start = threading.Barrier(count)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            start.wait()
            work()
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors


@pytest.mark.django_db(transaction=True)
def test_workers_rendering_one_board_ahead_at_once_take_turns(test_set):
    before = _stored(test_set.pk)
    rendered: list[int] = []

    def slow_render(test_set_id: int) -> None:
        # The version this render is for (the stored one + 1 while rendering ahead).
        rendered.append(int(boardcache.version(test_set_id)))
        time.sleep(0.3)

    boardcache.render_ahead_with(slow_render)
    try:
        _in_threads(
            2,
            lambda: boardcache.invalidate(
                test_set_id=test_set.pk, refresh_statistics=False
            ),
        )
    finally:
        boardcache.render_ahead_with(None)
    # Before: [before + 1, before + 1], and before + 2 rendered by nobody.
    assert sorted(rendered) == [before + 1, before + 2]
    assert _stored(test_set.pk) == before + 2


@pytest.mark.django_db(transaction=True)
def test_requests_missing_one_board_compute_it_once(
    test_set, submit_run, demo_run, monkeypatch
):
    sub = submit_run(demo_run, method="the-one")
    assert scoring.score_submission(submission_id=sub.pk) == "scored"
    computed = [0]
    real = leaderboard.compute

    def slow_compute(**kwargs):  # noqa: ANN003, ANN202
        computed[0] += 1
        time.sleep(0.3)
        return real(**kwargs)

    monkeypatch.setattr(leaderboard, "compute", slow_compute)
    boards: list[leaderboard.Board] = []
    _in_threads(4, lambda: boards.append(leaderboard.board(test_set=test_set)))
    assert computed[0] == 1
    assert len(boards) == 4 and {b.rows[0].method_name for b in boards} == {"the-one"}


@pytest.mark.django_db
def test_a_page_around_the_previous_boards_is_not_kept_for_the_new_version(
    client, phase, test_set, submit_run, bucc_demo, task, outsider,
    django_capture_on_commit_callbacks,
):  # fmt: skip
    from django.core.cache import cache

    from evalhub.competitions.services import teams

    def score(sub) -> None:  # noqa: ANN001
        with django_capture_on_commit_callbacks(execute=True):
            assert scoring.score_submission(submission_id=sub.pk) == "scored"

    url = f"/tasks/{phase.task.slug}/{phase.slug}/leaderboard/"
    runs = {method: files["test"] for _, method, files in bucc_demo.runs}
    score(submit_run(runs["dictionary"], method="first-method"))
    assert b"first-method" in client.get(url).content  # page and fragment cached
    teams.register(task=task, user=outsider, new_team_name="Second team")
    score(submit_run(runs["random"], user=outsider, method="second-method"))
    # Another request holds the render lock of the new boards.
    real_add = cache.add

    def busy(key, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        return False if key.endswith(":rendering") else real_add(key, *args, **kwargs)

    cache.add = busy
    try:
        during = client.get(url).content
    finally:
        del cache.add
    assert b"first-method" in during and b"second-method" not in during
    # No new change since: the next request gets the new boards all the same.
    assert b"second-method" in client.get(url).content
