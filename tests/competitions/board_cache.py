"""Helpers of the tests of the leaderboard page's cached boards fragment
(``test_leaderboard_page_cache.py``) and of the boards rendered ahead
(``test_boards_rendered_ahead.py``): the refreshes asked for, the renders counted,
the page's URL, a run scored with its on-commit callbacks, a version's stored part."""

from __future__ import annotations

import pytest

from evalhub.competitions.services.boards import board_pages
from evalhub.competitions.services.boards import refreshes as refreshes_service
from evalhub.competitions.services.boards.board_pages import (
    render_to_string as real_render,
)
from evalhub.competitions.services.runs import scoring


@pytest.fixture
def sent(monkeypatch):  # noqa: ANN001, ANN201
    """Refreshes asked for (rows made due, no job run): (kind, test set id)."""
    calls: list[tuple[str, int]] = []
    real = refreshes_service.request

    def recording(*, kind: str, test_set_id: int) -> bool:
        calls.append((kind, test_set_id))
        return real(kind=kind, test_set_id=test_set_id)

    monkeypatch.setattr(refreshes_service, "request", recording)
    return calls


@pytest.fixture
def renders(monkeypatch):  # noqa: ANN001, ANN201
    count = [0]

    def counting(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        count[0] += 1
        return real_render(*args, **kwargs)

    monkeypatch.setattr(board_pages, "render_to_string", counting)
    return count


def page_url(phase) -> str:  # noqa: ANN001
    return f"/tasks/{phase.task.slug}/{phase.slug}/leaderboard/"


def score_now(submission_id: int, django_capture_on_commit_callbacks) -> None:  # noqa: ANN001
    with django_capture_on_commit_callbacks(execute=True):
        assert scoring.score_submission(submission_id=submission_id) == "scored"


def stored_part(version: int | str) -> int:
    """The stored part of a version: these tests run inside one transaction, which
    keeps the callbacks it ran (a real commit clears them), so a test set changed
    earlier in the test is also keyed by that transaction's token."""
    return int(str(version).split("~")[0])
