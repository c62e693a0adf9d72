"""The conftest's world (users, the BUCC demo task, its phase, test sets and team)
built once per module, for modules whose tests only read it (``shared_world``).

A module defines a module-scoped ``world`` fixture (``shared_world.kept`` around
``build``, with whatever else its tests read) and imports the fixtures below: they
stand in for the conftest's of the same names (``name=``: imported as ``task_row``
..., so that a test's ``task`` argument does not shadow the import), each a fresh
instance of the world's row (a test may change and save it: its transaction is rolled back)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest

from tests import shared_world


def organiser_user(user_model: Any) -> Any:  # noqa: ANN401
    return user_model.objects.create_user(
        "org", password="pw-organiser-1", is_staff=True
    )


def participant_user(user_model: Any) -> Any:  # noqa: ANN401
    return user_model.objects.create_user("alice", password="pw-alice-1")


def outsider_user(user_model: Any) -> Any:  # noqa: ANN401
    return user_model.objects.create_user("mallory", password="pw-mallory-1")


def bucc_task(organiser: Any, demo: Any) -> Any:  # noqa: ANN401
    from evalhub.competitions.models import SharedTask

    t = SharedTask.objects.create(
        slug="bucc-test",
        title="BUCC test task",
        description="A *test* task.",
        task_type="bilingual_term_alignment",
        task_settings=dict(demo.settings),
        state=SharedTask.State.PUBLISHED,
    )
    t.organisers.add(organiser)
    return t


def evaluation_phase(task: Any) -> Any:  # noqa: ANN401
    from django.utils import timezone

    from evalhub.competitions.models import Phase

    now = timezone.now()
    return Phase.objects.create(
        task=task,
        slug="evaluation",
        name="Evaluation",
        opens_at=now - timedelta(days=1),
        closes_at=now + timedelta(days=7),
        daily_limit=3,
        total_limit=5,
    )


def add_test_set(phase: Any, demo: Any, *, slug: str, visibility: str) -> Any:  # noqa: ANN401
    from evalhub.competitions.models import TestSet
    from evalhub.competitions.services.data import datasets

    ts_data = demo.test_sets[0]
    test_set = TestSet.objects.create(
        phase=phase, slug=slug, name=slug.title(), visibility=visibility
    )
    for role, data in {**ts_data.inputs, **ts_data.gold}.items():
        datasets.store_file(
            test_set=test_set, role=role, filename=f"{role}.tsv", data=data
        )
    return test_set


@dataclass(frozen=True)
class Campaign:
    """The conftest's organiser, BUCC demo task, evaluation phase and public test
    set, as its fixtures build them (``public_campaign``)."""

    demo: Any
    users: Any  # the user model
    organiser: Any
    task: Any
    phase: Any
    test_set: Any

    def keys(self) -> dict[str, int]:
        """Its rows' primary keys by the conftest's fixture names, for a world."""
        return {
            "organiser": self.organiser.pk,
            "task": self.task.pk,
            "phase": self.phase.pk,
            "test_set": self.test_set.pk,
        }


def public_campaign() -> Campaign:
    """The conftest's ``organiser``, ``task``, ``phase`` and ``test_set`` (the
    public test set only) as they build them, for a module's world."""
    from django.contrib.auth import get_user_model

    from tasks import registry

    demo = registry.get("bilingual_term_alignment").demo(seed=0)
    users = get_user_model()
    organiser = organiser_user(users)
    task = bucc_task(organiser, demo)
    phase = evaluation_phase(task)
    test_set = add_test_set(phase, demo, slug="public", visibility="public")
    return Campaign(demo, users, organiser, task, phase, test_set)


def build() -> dict[str, int]:
    """The conftest's fixtures ``organiser`` .. ``team`` as they build them, for a
    module's ``world``: their primary keys by fixture name."""
    from evalhub.competitions.services import teams

    c = public_campaign()
    participant = participant_user(c.users)
    outsider = outsider_user(c.users)
    private = add_test_set(c.phase, c.demo, slug="private", visibility="private")
    team = teams.register(task=c.task, user=participant, new_team_name="Alpha").team
    return {
        **c.keys(),
        "participant": participant.pk,
        "outsider": outsider.pk,
        "private_test_set": private.pk,
        "team": team.pk,
    }


@pytest.fixture(name="isolated_storage")
def isolated_storage_row(world, settings):  # noqa: ANN001, ANN201
    return shared_world.point_storage(
        settings, world.root, shared_world.fresh_cache_prefix()
    )


def _row(world: shared_world.World, name: str, model: Any) -> Any:  # noqa: ANN401
    return model.objects.get(pk=world.value[name])


@pytest.fixture(name="organiser")
def organiser_row(world, isolated_storage, django_user_model):  # noqa: ANN001, ANN201
    return _row(world, "organiser", django_user_model)


@pytest.fixture(name="participant")
def participant_row(world, isolated_storage, django_user_model):  # noqa: ANN001, ANN201
    return _row(world, "participant", django_user_model)


@pytest.fixture(name="outsider")
def outsider_row(world, isolated_storage, django_user_model):  # noqa: ANN001, ANN201
    return _row(world, "outsider", django_user_model)


@pytest.fixture(name="task")
def task_row(world, isolated_storage):  # noqa: ANN001, ANN201
    from evalhub.competitions.models import SharedTask

    return _row(world, "task", SharedTask)


@pytest.fixture(name="phase")
def phase_row(world, isolated_storage):  # noqa: ANN001, ANN201
    from evalhub.competitions.models import Phase

    return _row(world, "phase", Phase)


@pytest.fixture(name="test_set")
def test_set_row(world, isolated_storage):  # noqa: ANN001, ANN201
    from evalhub.competitions.models import TestSet

    return _row(world, "test_set", TestSet)


@pytest.fixture(name="private_test_set")
def private_test_set_row(world, isolated_storage):  # noqa: ANN001, ANN201
    from evalhub.competitions.models import TestSet

    return _row(world, "private_test_set", TestSet)


@pytest.fixture(name="team")
def team_row(world, isolated_storage):  # noqa: ANN001, ANN201
    from evalhub.competitions.models import Team

    return _row(world, "team", Team)
