"""The overview-paper package's table of a board with one system says "1 system"
(as ``evalhub compare --format latex`` writes it), not "1 systems"."""

from __future__ import annotations

import pytest

from evalhub.rankings.services import package, package_files
from tests.competitions.runs import stored_run

pytestmark = pytest.mark.django_db


def test_a_table_of_one_system_says_system(
    phase, test_set, team, participant, organiser
):  # noqa: ANN001
    stored_run(phase, team, participant, {test_set: 0.4}, minutes_ago=9)
    built = package.build(phase=phase, user=organiser, render=True)
    tex = package_files.files(built)["tables/public.tex"].decode()
    assert "1 system ranked by" in tex, tex
    assert "1 systems" not in tex
