"""Fixtures of the competitions tests that need more than the root conftest's BUCC
task."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from evalhub.competitions.models import Phase, SharedTask, TestSet
from evalhub.competitions.services import datasets, teams


@pytest.fixture
def alignment_phase(organiser, isolated_storage, django_user_model):  # noqa: ANN001, ANN201
    """A sentence-alignment task (the demo data), its open phase with both test
    sets, and an approved participant: (phase, user, team)."""
    from tasks import registry

    demo = registry.get("sentence_alignment").demo(seed=0)
    task = SharedTask.objects.create(
        slug="align", title="Align", task_type="sentence_alignment",
        task_settings=dict(demo.settings), state="published",
    )  # fmt: skip
    task.organisers.add(organiser)
    now = timezone.now()
    phase = Phase.objects.create(
        task=task, slug="test", name="Test", opens_at=now - timedelta(days=1),
        closes_at=now + timedelta(days=1), daily_limit=5, total_limit=5,
    )  # fmt: skip
    for ts in demo.test_sets:
        test_set = TestSet.objects.create(phase=phase, slug=ts.name, name=ts.name)
        for role, data in {**ts.inputs, **ts.gold}.items():
            datasets.store_file(test_set=test_set, role=role, filename=role, data=data)
    user = django_user_model.objects.create_user("aligner")
    team = teams.register(task=task, user=user, new_team_name="Aligners").team
    return phase, user, team
