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


def _page_lock(phase, path: str) -> str:  # noqa: ANN001
    """The render lock of the anonymous page at ``path`` as it is now (what a
    request rendering it holds), from the same rules the page is kept by."""
    from evalhub.competitions.services.boards import fragments, page_keys

    phase_, test_sets = page_keys.light_phase(
        slug=phase.task.slug, phase_slug=phase.slug
    )
    vary_on = page_keys.vary_on(phase=phase_, path=path)
    return fragments.page_key(test_sets=test_sets, vary_on=vary_on) + ":rendering"


@pytest.mark.django_db
def test_a_page_being_rendered_elsewhere_serves_the_previous_page(
    client, phase, test_set, submit_run, bucc_demo, task, outsider, participant,
    django_capture_on_commit_callbacks,
):  # fmt: skip
    """After a change, one request renders each kept page (the anonymous page,
    a signed-in audience's shell); the others get the previous one meanwhile
    rather than all rendering it (issue 47: each new board version drew the
    pages around it once per waiting request)."""
    from django.core.cache import cache
    from django.test import Client

    from evalhub.competitions.services import teams

    def score(sub) -> None:  # noqa: ANN001
        with django_capture_on_commit_callbacks(execute=True):
            assert scoring.score_submission(submission_id=sub.pk) == "scored"

    url = f"/tasks/{phase.task.slug}/{phase.slug}/leaderboard/"
    runs = {method: files["test"] for _, method, files in bucc_demo.runs}
    signed_in = Client()
    signed_in.force_login(participant)
    score(submit_run(runs["dictionary"], method="first-method"))
    assert b"first-method" in client.get(url).content
    assert b"first-method" in signed_in.get(url).content
    teams.register(task=task, user=outsider, new_team_name="Second team")
    score(submit_run(runs["random"], user=outsider, method="second-method"))

    # Another request renders the new anonymous page: served from the cache
    # (the quick way) and by the full way alike, the previous page.
    lock = _page_lock(phase, url)
    cache.set(lock, 1)
    during = client.get(url).content
    assert b"first-method" in during and b"second-method" not in during
    cache.delete(lock)
    assert b"second-method" in client.get(url).content

    # Every page lock held (the fragment's is free): the signed-in shell too.
    real_add = cache.add

    def busy(key, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if key.startswith("leaderboard:page:") and key.endswith(":rendering"):
            return False
        return real_add(key, *args, **kwargs)

    cache.add = busy
    try:
        during = signed_in.get(url).content.decode()
    finally:
        del cache.add
    assert "first-method" in during and "second-method" not in during
    assert 'class="badge you"' in during  # the viewer's parts put in all the same
    assert "second-method" in signed_in.get(url).content.decode()


@pytest.mark.django_db
def test_a_page_drawn_before_a_run_was_hidden_is_never_served_again(
    client, phase, test_set, submit_run, bucc_demo, participant,
    django_capture_on_commit_callbacks,
):  # fmt: skip
    from django.core.cache import cache

    from evalhub.competitions.services.runs import hiding

    url = f"/tasks/{phase.task.slug}/{phase.slug}/leaderboard/"
    runs = {method: files["test"] for _, method, files in bucc_demo.runs}
    sub = submit_run(runs["dictionary"], method="soon-hidden")
    with django_capture_on_commit_callbacks(execute=True):
        assert scoring.score_submission(submission_id=sub.pk) == "scored"
    assert b"soon-hidden" in client.get(url).content
    with django_capture_on_commit_callbacks(execute=True):
        hiding.set_hidden(submission=sub, user=participant, hidden=True)
    lock = _page_lock(phase, url)
    cache.set(lock, 1)  # another request renders the page without the run
    try:
        during = client.get(url).content
    finally:
        cache.delete(lock)
    assert b"soon-hidden" not in during
