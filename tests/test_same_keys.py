"""Two tests that build the same rows get the same keys (``tests/same_keys.py``): on
PostgreSQL the sequences are set back after each test, as SQLite's counters roll
back with the test's transaction. The second test reads what the first recorded
(the tests of a module run in order, in one process)."""

from __future__ import annotations

import pytest

from evalhub.competitions.models import Team

pytestmark = pytest.mark.django_db

_first: list[int] = []


def _build() -> int:
    Team.objects.create(name="A")
    return Team.objects.create(name="B").pk


def test_a_world_built_first() -> None:
    _first.append(_build())


def test_the_same_world_built_again_has_the_same_keys() -> None:
    if not _first:
        pytest.skip("run with the test before it")
    assert _build() == _first[0]
