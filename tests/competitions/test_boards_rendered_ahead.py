# ruff: noqa: F811  (the sent and renders fixtures are imported, then requested by name)
"""Boards rendered ahead (``boardcache.render_ahead_with``, as worker processes do):
once a scoring transaction commits, the new public boards are rendered before their
version shows, once for viewers of every zone; organisers' boards are rendered on
request; a failure to render ahead still bumps the version. The cached fragment
itself: ``test_leaderboard_page_cache.py``."""

from __future__ import annotations

import pytest

from evalhub.competitions.models import BoardVersion
from evalhub.competitions.services.boards import board_pages, boardcache
from tests.competitions.board_cache import (  # noqa: F401  (fixtures)
    page_url,
    renders,
    score_now,
    sent,
    stored_part,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def render_ahead():  # noqa: ANN201
    """This process renders boards ahead, as worker processes do (evalhub.celery)."""
    board_pages._noted.clear()
    boardcache.render_ahead_with(board_pages.warm_leaderboard)
    yield
    boardcache.render_ahead_with(None)
    board_pages._noted.clear()


def test_a_worker_renders_the_new_public_boards_before_they_show(
    client,
    phase,
    test_set,
    submit_run,
    demo_run,
    participant,
    organiser,
    renders,
    sent,
    render_ahead,
    django_capture_on_commit_callbacks,
):
    seen = []
    real_warm = board_pages.warm_leaderboard

    def stored(test_set_id: int) -> int:
        return (
            BoardVersion.objects.filter(test_set_id=test_set_id)
            .values_list("version", flat=True)
            .first()
            or 0
        )

    def watching(test_set_id: int) -> None:
        # While rendering ahead, the stored version is still the old one.
        seen.append((stored(test_set_id), stored_part(boardcache.version(test_set_id))))
        real_warm(test_set_id)

    boardcache.render_ahead_with(watching)
    client.get(page_url(phase))  # someone reads the board (an empty one)
    assert renders[0] == 1
    sub = submit_run(demo_run, method="warmed-method")
    before = stored(test_set.pk)
    score_now(sub.pk, django_capture_on_commit_callbacks)
    # Once the scoring transaction commits: rendered ahead as v + 1 while the
    # database still holds v, then bumped to v + 1.
    assert seen == [(before, before + 1)] and renders[0] == 2
    assert stored(test_set.pk) == before + 1
    assert b"warmed-method" in client.get(page_url(phase)).content
    client.force_login(participant)  # not an organiser: the public boards too
    assert b"warmed-method" in client.get(page_url(phase)).content
    assert renders[0] == 2  # no viewer rendered them
    client.force_login(organiser)  # organisers' boards: rendered on request
    client.get(page_url(phase))
    assert renders[0] == 3


def test_boards_are_rendered_ahead_once_for_viewers_of_every_zone(
    client,
    phase,
    test_set,
    submit_run,
    demo_run,
    renders,
    sent,
    render_ahead,
    django_capture_on_commit_callbacks,
):
    runs = iter([demo_run, demo_run.replace(b"\n", b"\r\n")])
    sub = submit_run(next(runs))
    score_now(sub.pk, django_capture_on_commit_callbacks)
    assert renders[0] == 0  # nobody reads the board: nothing rendered ahead
    client.cookies["tz"] = "Europe%2FParis"
    client.get(page_url(phase))  # a miss: rendered, and the view noted
    assert renders[0] == 1
    sub = submit_run(next(runs))
    score_now(sub.pk, django_capture_on_commit_callbacks)
    assert renders[0] == 2  # ahead, once
    client.get(page_url(phase))
    assert renders[0] == 2
    del client.cookies["tz"]
    client.get(page_url(phase))  # another zone: the same page (times are UTC)
    assert renders[0] == 2
    with django_capture_on_commit_callbacks(execute=True):
        boardcache.invalidate(test_set_id=test_set.pk, refresh_statistics=False)
    assert renders[0] == 3  # once for every zone
    client.get(page_url(phase))
    assert renders[0] == 3


def test_a_failure_to_render_ahead_still_bumps_the_version(
    client, phase, test_set, submit_run, demo_run, renders, sent, caplog,
    django_capture_on_commit_callbacks,
):  # fmt: skip
    def broken(test_set_id: int) -> None:
        raise ConnectionError("cache unreachable")

    boardcache.render_ahead_with(broken)
    try:
        sub = submit_run(demo_run, method="after-a-failure")
        score_now(sub.pk, django_capture_on_commit_callbacks)
    finally:
        boardcache.render_ahead_with(None)
    assert "could not render test set" in caplog.text
    assert b"after-a-failure" in client.get(page_url(phase)).content
    assert renders[0] == 1  # the viewer rendered it


def test_a_board_with_figures_is_read_once_while_rendered_ahead(
    client,
    monkeypatch,
    phase,
    test_set,
    submit_run,
    demo_run,
    outsider,
    other_team,
    render_ahead,
    django_capture_on_commit_callbacks,
):
    from django.core.cache import cache

    from evalhub.competitions import jobs
    from evalhub.competitions.services.boards import leaderboard

    sub = submit_run(demo_run, method="first")
    score_now(sub.pk, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        assert jobs.refresh_analyses(test_set.pk)  # figures on the board
    client.get(page_url(phase))  # someone reads the board
    reads: list[str] = []

    class Counting:
        """The cache, as the leaderboard module uses it, noting each read."""

        def get(self, key, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
            reads.append(key)
            return cache.get(key, *args, **kwargs)

        def __getattr__(self, name: str):  # noqa: ANN204
            return getattr(cache, name)

    monkeypatch.setattr(leaderboard, "cache", Counting())
    sub = submit_run(demo_run, user=outsider, method="second")
    score_now(sub.pk, django_capture_on_commit_callbacks)
    boards = [k for k in reads if k.startswith("leaderboard:r") and k.endswith(":all")]
    # Each figure checks it is current against the board: one read for them all.
    assert len(boards) == len(set(boards)) == 1
    monkeypatch.undo()
    assert b"second" in client.get(page_url(phase)).content
