"""Shared fixtures: user -> task -> phase -> test set (with the BUCC demo data) ->
registered team -> submission. Function-scoped and composable.

With no REDIS_URL the session starts the embedded Redis (as ``manage.py up`` does);
with REDIS_URL and DATABASE_URL (as in CI) the tests use the real services.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from tests import bytecode, demo_world

pytest_plugins = ["tests.scheduling", "tests.browser_fixtures", "tests.same_keys"]


def pytest_configure(config: pytest.Config) -> None:
    bytecode.kept()
    from tests import plot_cache

    plot_cache.install()  # each distinct figure drawn once per run
    config._evalhub_figures = plot_cache.share()  # type: ignore[attr-defined]
    if not config.pluginmanager.hasplugin("django"):
        return  # task-type tests run without Django (-p no:django)
    from django.conf import settings

    # Django's advice for test suites: hash the test users' passwords cheaply (the
    # production hasher takes a good part of a second per user, and the fixtures
    # create several users for most tests). Nothing here tests the hasher.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        _own_broker_keys(f"test-{worker}:")
    elif getattr(settings, "USING_EMBEDDED_REDIS", False):
        # One embedded Redis for the whole run, started by the process that
        # outlives the xdist workers (or by the only process).
        from evalhub import embedded_redis

        config._evalhub_redis = embedded_redis.start(  # type: ignore[attr-defined]
            settings.EMBEDDED_REDIS_SOCKET, settings.VAR_DIR / "redis-test.db"
        )


def _own_broker_keys(prefix: str) -> None:
    """Each xdist worker has its own test database, so its jobs and the Celery
    workers it starts use broker keys of their own: a worker of another xdist
    process (on another database) never takes them."""
    from django.conf import settings

    from evalhub.celery import app

    os.environ["EVALHUB_BROKER_KEY_PREFIX"] = prefix  # the child processes
    options = {**settings.CELERY_BROKER_TRANSPORT_OPTIONS, "global_keyprefix": prefix}
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = options
    app.conf.broker_transport_options = options


def pytest_unconfigure(config: pytest.Config) -> None:
    from tests import plot_cache

    plot_cache.unshare(getattr(config, "_evalhub_figures", None))
    handle = getattr(config, "_evalhub_redis", None)
    if handle is not None:
        from evalhub import embedded_redis

        embedded_redis.stop(handle)


@pytest.fixture
def figure_saves(monkeypatch):  # noqa: ANN001, ANN201
    """The format of each file matplotlib saves from now on (``Figure.savefig``):
    what a test's code drew, as opposed to what the tests' memo of equal figures
    (``tests/plot_cache.py``) handed out."""
    from matplotlib.figure import Figure

    saved: list[str | None] = []
    real = Figure.savefig

    def savefig(fig, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        saved.append(kwargs.get("format"))
        return real(fig, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", savefig)
    return saved


@pytest.fixture(autouse=True)
def fresh_cache_namespace(request):  # noqa: ANN001, ANN201
    """Every test reads and writes its own cache namespace: nothing cached by an
    earlier test (or run) under the same primary keys answers for this one."""
    if not request.config.pluginmanager.hasplugin("django"):
        return None  # the pure task-type tests, run with -p no:django
    settings = request.getfixturevalue("settings")
    prefix = f"test-{uuid.uuid4().hex[:12]}"
    settings.CACHES = {"default": {**settings.CACHES["default"], "KEY_PREFIX": prefix}}
    # The process's record of boards viewed lately (noted in the cache at most once
    # a minute) belongs to the old namespace: an earlier test of this process on the
    # same phase id (SQLite reuses ids) would keep this one from noting its views.
    from evalhub.competitions.services.boards import board_pages

    board_pages._noted.clear()  # noqa: SLF001
    return prefix


@pytest.fixture
def isolated_storage(request, settings, tmp_path):  # noqa: ANN001, ANN201
    """Uploaded files go to a fresh folder; a fresh cache namespace per test. A test
    with the test process's worker (``worker``) uses the worker's folder and
    namespace, emptied first: what the worker reads and writes is this test's."""
    from tests import shared_world

    shared = None
    if "worker" in request.fixturenames:
        shared = request.getfixturevalue("shared_worker")
        shared.empty_storage()
        root, prefix = shared.root, shared.cache_prefix
    else:
        root = tmp_path / "private"
        root.mkdir()
        prefix = shared_world.fresh_cache_prefix()
    found = shared_world.point_storage(settings, root, prefix)
    if shared is not None:
        from django.core.cache import cache

        cache.clear()  # the namespace's keys only (evalhub.cache.RedisCache.clear)
    return found


@pytest.fixture
def organiser(django_user_model):  # noqa: ANN001, ANN201
    return demo_world.organiser_user(django_user_model)


@pytest.fixture
def participant(django_user_model):  # noqa: ANN001, ANN201
    return demo_world.participant_user(django_user_model)


@pytest.fixture
def outsider(django_user_model):  # noqa: ANN001, ANN201
    return demo_world.outsider_user(django_user_model)


@pytest.fixture(scope="session")
def bucc_demo():  # noqa: ANN201
    """The BUCC demo data (its files are bytes: no test can change them)."""
    from tasks import registry

    return registry.get("bilingual_term_alignment").demo(seed=0)


@pytest.fixture
def task(organiser, bucc_demo, isolated_storage):  # noqa: ANN001, ANN201
    return demo_world.bucc_task(organiser, bucc_demo)


@pytest.fixture
def phase(task):  # noqa: ANN001, ANN201
    return demo_world.evaluation_phase(task)


@pytest.fixture
def test_set(phase, bucc_demo):  # noqa: ANN001, ANN201
    return demo_world.add_test_set(phase, bucc_demo, slug="public", visibility="public")


@pytest.fixture
def private_test_set(phase, bucc_demo, test_set):  # noqa: ANN001, ANN201
    return demo_world.add_test_set(
        phase, bucc_demo, slug="private", visibility="private"
    )


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
    from evalhub.competitions.services.runs import submit

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


# --- real processes: a Celery worker, a live server (Chromium: browser_fixtures.py) -


def database_env() -> dict[str, str]:
    """Environment that points a child process at the test database."""
    from django.db import connection

    s = connection.settings_dict
    if s["ENGINE"].endswith("sqlite3"):
        return {"EVALHUB_SQLITE_PATH": str(s["NAME"])}
    auth = s["USER"] + (f":{s['PASSWORD']}" if s.get("PASSWORD") else "")
    host = s["HOST"] or "127.0.0.1"
    port = s["PORT"] or "5432"
    return {"DATABASE_URL": f"postgres://{auth}@{host}:{port}/{s['NAME']}"}


def wait_for_database_sessions_to_end(timeout: float = 20) -> list[tuple]:  # type: ignore[type-arg]
    """PostgreSQL ends a dead client's session a moment after the process exits; the
    test database can only be dropped once it has. Returns the sessions still
    there after ``timeout`` (process id, start, state, last statement)."""
    import time

    from django.db import connection

    if connection.vendor != "postgresql":
        return []
    deadline = time.monotonic() + timeout
    while True:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pid, client_port, backend_start, state, left(query, 200)"
                " FROM pg_stat_activity WHERE datname = current_database() AND pid"
                " <> pg_backend_pid() AND application_name NOT LIKE 'pg_%%'"
                " AND backend_type = 'client backend'"
            )
            others = cursor.fetchall()
        if not others or time.monotonic() >= deadline:
            return [(*row, _process_with_port(row[1])) for row in others]
        time.sleep(0.2)


def _process_with_port(port: int | None) -> str:
    """The local process (pid and command line) whose TCP socket has this local
    port: who holds a database session."""
    import os

    if not port:
        return "?"
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(f"socket:[{fields[9]}]")
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        try:
            fds = list(fd_dir.iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(fd) not in inodes:
                    continue
                cmd = (fd_dir.parent / "cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            pid = int(fd_dir.parent.name)
            mine = " (this pytest process)" if pid == os.getpid() else ""
            return f"pid {pid}{mine}: {cmd.decode(errors='replace')[:200]}"
    return "no local process"


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):  # noqa: ANN001, ANN201, ARG001
    """pytest-django's per-process database name, and on PostgreSQL a copy of the
    template migrated once (``tests/template_db.py``)."""
    from django.conf import settings

    from tests import template_db

    template_db.use(settings.DATABASES["default"])


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):  # noqa: ANN001, ANN201
    """pytest-django's test database (created only when a test asks for the
    database), and at the end, before it is dropped: the child processes
    (workers, gunicorn) of the last tests may hold a session for a moment after
    they exit; wait for them, and name any session that stays (a connection a
    test left open)."""
    yield
    import warnings

    with django_db_blocker.unblock():
        left = wait_for_database_sessions_to_end()
    if left:
        warnings.warn(f"database sessions left open at the end: {left!r}", stacklevel=1)


@pytest.fixture(scope="session")
def shared_worker(django_db_setup, django_db_blocker, tmp_path_factory):  # noqa: ANN001, ANN201
    """The test process's Celery worker (``tests/workers.py``'s ``SharedWorker``),
    started by the first test that asks for ``worker``, stopped at the end."""
    from tests import workers

    shared = workers.SharedWorker(
        tmp_path_factory.mktemp("worker-private"),
        tmp_path_factory.mktemp("worker-beat") / "beat",
        {**os.environ, **database_env()},
    )
    yield shared
    shared.stop()
    with django_db_blocker.unblock():
        wait_for_database_sessions_to_end()


@pytest.fixture
def worker(isolated_storage, shared_worker):  # noqa: ANN001, ANN201
    """A real Celery worker process on the test database, the test's storage and
    cache namespace, consuming every queue the settings route jobs to, with beat
    (the sweeper, the refreshes that are due) in the same process: the test
    process's worker, consuming during this test only (``isolated_storage`` gave it
    an empty folder and namespace: it sees ``worker`` among the test's fixture
    names, so a test names it as an argument, not through ``getfixturevalue``)."""
    yield shared_worker.resume()
    shared_worker.pause()


@pytest.fixture
def own_worker(isolated_storage, tmp_path):  # noqa: ANN001, ANN201
    """As ``worker``, but a worker process started for this test (and stopped at its
    end) with the environment the test set: for a test whose worker must see a
    variable (``test_fifth_task_type.py``)."""
    import subprocess

    from tests import workers
    from tests.paths import REPO_ROOT

    env = {
        **os.environ,
        **database_env(),
        **workers.ENV,
        "EVALHUB_PRIVATE_ROOT": str(isolated_storage["root"]),
        "EVALHUB_CACHE_PREFIX": isolated_storage["cache_prefix"],
    }
    name = f"test-{uuid.uuid4().hex[:8]}@%h"
    command = workers.command(name, workers.all_queues(), beat=tmp_path / "beat")
    proc = subprocess.Popen(command, cwd=REPO_ROOT, env=env)
    yield proc
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=30)
    wait_for_database_sessions_to_end()
