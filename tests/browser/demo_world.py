"""The seeded demo site as a world built once per test module, for the browser
modules whose tests only read it (a module imports the fixtures it uses:
``demo_tasks`` and ``transactional_db``).

Seeding the four demo tasks and scoring their runs takes half a minute of CPU;
built per test, the four roles of the accessibility crawl paid it four times.
``demo_tasks`` builds it at the module's first test, committed (the live server's
thread reads it through a connection of its own), with a storage folder and a
cache namespace of the module's own; at the module's end the database is
flushed, as a transactional test leaves it for the next module.

The tests of such a module reach the database through ``transactional_db``,
overridden here (pytest-django's ``live_server`` asks for it): the database
unblocked for the test, and nothing flushed after it, since that would empty the
world before the module's next test. So such a module has no ``django_db``
marker, none of its tests asks for ``db`` (nor ``django_user_model``), and each
test leaves the world as the next one expects it: it reads pages, signs in (a
session of its own), and adds nothing another test of the module counts on not
being there. Each test still reads and writes its own cache namespace
(``fresh_cache_namespace``): it starts with nothing cached."""

from __future__ import annotations

import uuid

import pytest


def seed_demo_tasks() -> tuple[list, list]:
    """The four demo tasks with their demo runs scored (no worker: the scorer is
    called directly) and their boards' intervals and bands computed."""
    from django.contrib.auth import get_user_model

    from evalhub.competitions.services import teams
    from evalhub.competitions.services.boards import analyses
    from evalhub.competitions.services.data import demo
    from evalhub.rankings import jobs
    from tests.rankings.helpers import scored

    users = get_user_model().objects
    tasks = demo.seed_demo(with_runs=False)
    runs = []
    for task in tasks:
        phase = task.phases.get()
        for i, (team_name, method, files) in enumerate(task.type.demo(seed=0).runs):
            user = users.create_user(f"{task.pk}-{i}")
            teams.register(task=task, user=user, new_team_name=f"{team_name} {task.pk}")
            runs.append(scored(phase, user, next(iter(files.values())), method))
        for test_set in phase.test_sets.all():
            jobs.refresh_statistics(test_set.pk)
            analyses.refresh(test_set_id=test_set.pk)
    return tasks, runs


@pytest.fixture(scope="module")
def module_world(django_db_setup, django_db_blocker, tmp_path_factory):  # noqa: ANN001, ANN201, ARG001
    """The database unblocked, a storage folder and a cache namespace for the
    module's world while its tests run; the database flushed at the end."""
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connections
    from django.test.utils import override_settings

    from evalhub.competitions.services.data import taskdata

    root = tmp_path_factory.mktemp("world-private")
    storages = {
        **settings.STORAGES,
        "default": {
            **settings.STORAGES["default"],
            "OPTIONS": {"location": str(root), "base_url": None},
        },
    }
    prefix = f"test-world-{uuid.uuid4().hex[:12]}"
    caches = {"default": {**settings.CACHES["default"], "KEY_PREFIX": prefix}}
    with override_settings(STORAGES=storages, CACHES=caches):
        taskdata.clear_caches()
        with django_db_blocker.unblock():
            yield
            for alias in connections:
                call_command("flush", verbosity=0, interactive=False, database=alias)
        taskdata.clear_caches()


@pytest.fixture(scope="module")
def demo_tasks(module_world):  # noqa: ANN001, ANN201, ARG001
    """The seeded demo site, once per module: (tasks, runs)."""
    return seed_demo_tasks()


@pytest.fixture
def transactional_db(module_world, django_db_blocker):  # noqa: ANN001, ANN201, ARG001
    """The module's world for one test: the database unblocked, nothing flushed
    after the test (see the module docstring)."""
    with django_db_blocker.unblock():
        yield
