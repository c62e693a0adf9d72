"""Viewers between a change and its commit (real PostgreSQL, two connections): a
board read in that gap is the old board, and it is never kept past the commit; two
gold replacements at once give two versions; board versions bumped at once all count."""

from __future__ import annotations

import threading

import pytest
from django.db import transaction

from evalhub.competitions.models import TestSet
from evalhub.competitions.services.boards import leaderboard
from evalhub.competitions.services.data import datasets
from evalhub.competitions.services.runs import hiding
from tests.concurrency import WAIT, in_thread
from tests.rankings.helpers import scored

pytestmark = pytest.mark.django_db(transaction=True)


def _rows(test_set_id: int) -> list[int]:
    ts = TestSet.objects.select_related("phase__task").get(pk=test_set_id)
    return [r.submission_id for r in leaderboard.board(test_set=ts).rows]


def test_a_viewer_between_hiding_and_the_commit_does_not_keep_the_run_public(
    phase, test_set, participant, team, demo_run
):
    """On main, ``set_hidden`` bumped the board version inside its transaction: a
    viewer in the gap cached the old board (the run still shown) under the new
    version, and the hidden run stayed public until the next bump."""
    sub = scored(phase, participant, demo_run, "to-hide", figures=False)
    assert _rows(test_set.pk) == [sub.pk]
    changed, viewed = threading.Event(), threading.Event()
    seen: list[list[int]] = []

    def viewer() -> None:
        assert changed.wait(WAIT)
        try:
            seen.append(_rows(test_set.pk))
        finally:
            viewed.set()

    thread, errors = in_thread(viewer)
    with transaction.atomic():
        hiding.set_hidden(submission=sub, user=participant, hidden=True)
        changed.set()
        assert viewed.wait(WAIT)
    thread.join(WAIT)
    assert not errors and seen == [[sub.pk]]  # the committed state, then
    assert _rows(test_set.pk) == []  # gone once the change committed


def test_two_gold_replacements_at_once_give_two_versions(test_set, bucc_demo):
    """On main the increment was done on an in-memory copy: version 1, not 2."""
    gold = bucc_demo.test_sets[0].gold["gold"]
    version = test_set.gold_version
    start = threading.Barrier(2, timeout=WAIT)

    def replace() -> None:
        ts = TestSet.objects.get(pk=test_set.pk)
        start.wait()
        datasets.store_file(test_set=ts, role="gold", filename="g.tsv", data=gold)

    threads = [in_thread(replace) for _ in range(2)]
    for thread, _ in threads:
        thread.join(WAIT)
    assert all(not errors for _, errors in threads)
    test_set.refresh_from_db()
    assert test_set.gold_version == version + 2


def test_board_versions_bumped_at_once_all_count(test_set):
    """Board versions are rows of the database, raised in one UPDATE each: bumps
    from two connections at the same moment never share a version (and the first
    bumps of a test set, which create its row, do not collide either)."""
    from evalhub.competitions.services.boards import boardcache

    start = threading.Barrier(2, timeout=WAIT)
    before = boardcache.version(test_set.pk)

    def bump() -> None:
        start.wait()
        for _ in range(10):
            boardcache.bump([test_set.pk])

    threads = [in_thread(bump) for _ in range(2)]
    for thread, _ in threads:
        thread.join(WAIT)
    assert all(not errors for _, errors in threads)
    assert boardcache.version(test_set.pk) == before + 20
