"""Shared fixtures: user -> task -> phase -> test set (with the BUCC demo data) ->
registered team -> submission. Function-scoped and composable.

With no REDIS_URL the session starts the embedded Redis (as ``manage.py up`` does);
with REDIS_URL and DATABASE_URL (as in CI) the tests use the real services.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest


def pytest_configure(config: pytest.Config) -> None:
    if not config.pluginmanager.hasplugin("django"):
        return  # task-type tests run without Django (-p no:django)
    from django.conf import settings

    if getattr(settings, "USING_EMBEDDED_REDIS", False):
        from evalhub import embedded_redis

        config._evalhub_redis = embedded_redis.start(  # type: ignore[attr-defined]
            settings.EMBEDDED_REDIS_SOCKET, settings.VAR_DIR / "redis-test.db"
        )


def pytest_unconfigure(config: pytest.Config) -> None:
    handle = getattr(config, "_evalhub_redis", None)
    if handle is not None:
        from evalhub import embedded_redis

        embedded_redis.stop(handle)


@pytest.fixture
def isolated_storage(settings, tmp_path):  # noqa: ANN001, ANN201
    """Uploaded files go to a fresh folder; a fresh cache namespace per test."""
    root = tmp_path / "private"
    root.mkdir()
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            **settings.STORAGES["default"],
            "OPTIONS": {"location": str(root), "base_url": None},
        },
    }
    prefix = f"test-{uuid.uuid4().hex[:12]}"
    settings.CACHES = {"default": {**settings.CACHES["default"], "KEY_PREFIX": prefix}}
    from evalhub.competitions.services import taskdata

    taskdata.clear_caches()
    return {"root": root, "cache_prefix": prefix}


@pytest.fixture
def organiser(django_user_model):  # noqa: ANN001, ANN201
    return django_user_model.objects.create_user(
        "org", password="pw-organiser-1", is_staff=True
    )


@pytest.fixture
def participant(django_user_model):  # noqa: ANN001, ANN201
    return django_user_model.objects.create_user("alice", password="pw-alice-1")


@pytest.fixture
def outsider(django_user_model):  # noqa: ANN001, ANN201
    return django_user_model.objects.create_user("mallory", password="pw-mallory-1")


@pytest.fixture
def bucc_demo():  # noqa: ANN201
    from tasks import registry

    return registry.get("bilingual_term_alignment").demo(seed=0)


@pytest.fixture
def task(organiser, bucc_demo, isolated_storage):  # noqa: ANN001, ANN201
    from evalhub.competitions.models import SharedTask

    t = SharedTask.objects.create(
        slug="bucc-test",
        title="BUCC test task",
        description="A *test* task.",
        task_type="bilingual_term_alignment",
        task_settings=dict(bucc_demo.settings),
        state=SharedTask.State.PUBLISHED,
    )
    t.organisers.add(organiser)
    return t


@pytest.fixture
def phase(task):  # noqa: ANN001, ANN201
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


def _add_test_set(phase, demo, *, slug: str, visibility: str):  # noqa: ANN001, ANN202
    from evalhub.competitions.models import TestSet
    from evalhub.competitions.services import datasets

    ts_data = demo.test_sets[0]
    test_set = TestSet.objects.create(
        phase=phase, slug=slug, name=slug.title(), visibility=visibility
    )
    for role, data in {**ts_data.inputs, **ts_data.gold}.items():
        datasets.store_file(
            test_set=test_set, role=role, filename=f"{role}.tsv", data=data
        )
    return test_set


@pytest.fixture
def test_set(phase, bucc_demo):  # noqa: ANN001, ANN201
    return _add_test_set(phase, bucc_demo, slug="public", visibility="public")


@pytest.fixture
def private_test_set(phase, bucc_demo, test_set):  # noqa: ANN001, ANN201
    return _add_test_set(phase, bucc_demo, slug="private", visibility="private")


@pytest.fixture
def team(task, participant):  # noqa: ANN001, ANN201
    from evalhub.competitions.services import teams

    return teams.register(task=task, user=participant, new_team_name="Alpha").team


@pytest.fixture
def other_team(task, outsider):  # noqa: ANN001, ANN201
    from evalhub.competitions.services import teams

    return teams.register(task=task, user=outsider, new_team_name="Mallory's").team


@pytest.fixture
def demo_run(bucc_demo):  # noqa: ANN001, ANN201
    """The bytes of the demo's best run."""
    return next(iter(bucc_demo.runs[0][2].values()))


@pytest.fixture
def submit_run(phase, participant, team, test_set):  # noqa: ANN001, ANN201
    from evalhub.competitions.services import submit

    def _submit(data: bytes, *, user=None, method: str = "m", **kwargs):  # noqa: ANN001, ANN003, ANN202
        return submit.submit_run(
            phase=phase,
            user=user or participant,
            filename="run.tsv",
            data=data,
            method_name=method,
            **kwargs,
        )

    return _submit
