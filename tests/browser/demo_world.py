"""The seeded demo site as a world built once per test module, for the browser
modules whose tests only read it (a module imports the fixtures it uses:
``demo_tasks``, ``module_world`` and ``transactional_db``).

Seeding the four demo tasks and scoring their runs takes a quarter to half a
minute of CPU; built per test, the four roles of the accessibility crawl paid it
four times. ``demo_tasks`` builds it at the module's first test, committed (the
live server's thread reads it through a connection of its own), in the test
process's world storage folder with a cache namespace of the module's own; at
the module's end the database is flushed, as a transactional test leaves it for
the next module. The process's next module that asks for it gets the same rows
back from a snapshot taken just after the seeding (tests/db_snapshot.py: no
model save, no receiver), the files still in the same folder. The snapshot and
a copy of the files are also left in the run's folder (shared by its test
processes, under a lock): the other test processes read them instead of seeding
again, so the demo site is seeded once per run.

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

import contextlib
import fcntl
import json
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import db_snapshot


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


#: The test process's demo world, once built: (snapshot, task ids, run ids).
_BUILT: list[tuple[db_snapshot.Snapshot, list[int], list[int]]] = []


#: The storage folder of the test process's worlds: a world put back from a
#: snapshot finds its files where they were written.
_STORAGE: list[Path] = []


@pytest.fixture(scope="module")
def module_world(django_db_setup, django_db_blocker, tmp_path_factory):  # noqa: ANN001, ANN201, ARG001
    """The database unblocked, the process's storage folder and a cache namespace
    of the module's own while its tests run; the database flushed at the end."""
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connections
    from django.test.utils import override_settings

    from evalhub.competitions.services.data import taskdata

    if not _STORAGE:
        _STORAGE.append(tmp_path_factory.mktemp("world-private"))
    storages = {
        **settings.STORAGES,
        "default": {
            **settings.STORAGES["default"],
            "OPTIONS": {"location": str(_STORAGE[0]), "base_url": None},
        },
    }
    prefix = f"test-world-{uuid.uuid4().hex[:12]}"
    caches = {"default": {**settings.CACHES["default"], "KEY_PREFIX": prefix}}
    with override_settings(STORAGES=storages, CACHES=caches):
        taskdata.clear_caches()
        with django_db_blocker.unblock():
            yield
            # As a transactional test's end flushes it: the ids keep going up
            # (flush's own default would start them again from 1 on PostgreSQL,
            # where a world put back from the snapshot already has those ids).
            for alias in connections:
                call_command(
                    "flush",
                    verbosity=0,
                    interactive=False,
                    database=alias,
                    reset_sequences=False,
                )
        taskdata.clear_caches()


@pytest.fixture(scope="module")
def demo_tasks(module_world, tmp_path_factory):  # noqa: ANN001, ANN201, ARG001
    """The seeded demo site: (tasks, runs). Seeded by the process's first module
    that asks for it; the next ones get its rows back from a snapshot
    (tests/db_snapshot.py) taken just after the seeding, before any test ran."""
    from evalhub.competitions.models import SharedTask, Submission

    if _BUILT:
        snapshot, task_ids, run_ids = _BUILT[0]
        db_snapshot.restore(snapshot)
    else:
        with _run_folder(tmp_path_factory) as shared:
            if (shared / "ids.json").exists():
                snapshot = db_snapshot.read(shared / "rows")
                shutil.copytree(shared / "files", _STORAGE[0], dirs_exist_ok=True)
                db_snapshot.restore(snapshot)
                task_ids, run_ids = json.loads((shared / "ids.json").read_text())
            else:
                tasks, runs = seed_demo_tasks()
                task_ids, run_ids = [t.pk for t in tasks], [r.pk for r in runs]
                snapshot = db_snapshot.take()
                db_snapshot.write(snapshot, shared / "rows")
                shutil.copytree(_STORAGE[0], shared / "files", dirs_exist_ok=True)
                (shared / "ids.json").write_text(json.dumps([task_ids, run_ids]))
        _BUILT.append((snapshot, task_ids, run_ids))
    tasks = SharedTask.objects.in_bulk(task_ids)
    runs = Submission.objects.in_bulk(run_ids)
    return [tasks[pk] for pk in task_ids], [runs[pk] for pk in run_ids]


@contextlib.contextmanager
def _run_folder(tmp_path_factory) -> Iterator[Path]:  # noqa: ANN001
    """The folder of the demo site seeded for the run, held under a lock: the
    run's folder is the parent of each test process's own under pytest-xdist
    (a worker: ``PYTEST_XDIST_WORKER`` is set), else the process's own."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    folder = base / "demo-site"
    folder.mkdir(exist_ok=True)
    with (folder / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield folder
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture
def transactional_db(module_world, django_db_blocker):  # noqa: ANN001, ANN201, ARG001
    """The module's world for one test: the database unblocked, nothing flushed
    after the test (see the module docstring)."""
    with django_db_blocker.unblock():
        yield
