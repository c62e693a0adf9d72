"""Fixtures of the competitions tests that need more than the root conftest's BUCC
task."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from evalhub.competitions.models import Phase, SharedTask, TestSet
from evalhub.competitions.services import teams
from evalhub.competitions.services.data import datasets


def _demo_phase(slug: str, organiser, django_user_model):  # noqa: ANN001, ANN202
    from tasks import registry

    demo = registry.get(slug).demo(seed=0)
    task = SharedTask.objects.create(
        slug=slug.replace("_", "-"), title=slug, task_type=slug,
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
    user = django_user_model.objects.create_user(f"{slug}-participant")
    team = teams.register(task=task, user=user, new_team_name=f"{slug} team").team
    return phase, user, team


@pytest.fixture
def alignment_phase(organiser, isolated_storage, django_user_model):  # noqa: ANN001, ANN201
    """A sentence-alignment task (the demo data), its open phase with every test
    set, and an approved participant: (phase, user, team)."""
    return _demo_phase("sentence_alignment", organiser, django_user_model)


@pytest.fixture
def term_list_phase(organiser, isolated_storage, django_user_model):  # noqa: ANN001, ANN201
    """The same for a term-extraction task."""
    return _demo_phase("term_extraction", organiser, django_user_model)


@pytest.fixture
def probe_lexicon_phase(organiser, isolated_storage, django_user_model):  # noqa: ANN001, ANN201
    """The same for an MT-lexicon-probe task."""
    return _demo_phase("mt_lexicon_probe", organiser, django_user_model)


@pytest.fixture
def scored_alignment(isolated_storage):  # noqa: ANN001, ANN201
    """The sentence-alignment demo, its runs scored and its statistics computed:
    (task, phase)."""
    from tests.rankings.statistics_demo import scored_demo

    task = scored_demo("sentence_alignment")
    return task, task.phases.get()
