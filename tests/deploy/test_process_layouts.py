"""The shipped process layouts (Procfile, deploy/compose.yaml) start every process
the design needs, and every Celery queue a job is routed to has a consumer."""

from __future__ import annotations

import shlex

import pytest
import yaml
from django.conf import settings

from tests.paths import REPO_ROOT

pytestmark = pytest.mark.django_db(False)


def _routed_queues() -> set[str]:
    routes = {r["queue"] for r in settings.CELERY_TASK_ROUTES.values()}
    return routes | {settings.CELERY_TASK_DEFAULT_QUEUE}


def _consumed(commands: list[list[str]]) -> set[str]:
    queues: set[str] = set()
    for argv in commands:
        if "worker" in argv and "-Q" in argv:
            queues |= set(argv[argv.index("-Q") + 1].split(","))
    return queues


def test_procfile():
    lines = (REPO_ROOT / "Procfile").read_text().splitlines()
    procs = dict(
        line.split(":", 1)
        for line in lines
        if line.strip() and not line.startswith("#")
    )
    commands = {name: shlex.split(cmd) for name, cmd in procs.items()}
    assert {"web", "scoring", "default", "beat", "release"} <= set(commands)
    assert commands["web"][0] == "gunicorn" and "evalhub.wsgi" in commands["web"]
    assert "beat" in commands["beat"]
    assert _consumed(list(commands.values())) == _routed_queues()
    for kind in ("scoring", "default"):  # as evalhub/worker_queues.py says
        assert _consumed([commands[kind]]) == set(settings.WORKER_QUEUES[kind])


def test_compose():
    compose = yaml.safe_load((REPO_ROOT / "deploy" / "compose.yaml").read_text())
    services = compose["services"]
    assert {"postgres", "redis", "minio", "web", "scoring", "default", "beat"} <= set(
        services
    )
    commands = [s["command"] for s in services.values() if "command" in s]
    assert _consumed(commands) == _routed_queues()
    for kind in ("scoring", "default"):  # as evalhub/worker_queues.py says
        assert _consumed([services[kind]["command"]]) == set(
            settings.WORKER_QUEUES[kind]
        )
    env = services["web"]["environment"]
    assert env["EVALHUB_STORAGE"] == "s3" and env["DATABASE_URL"].startswith(
        "postgres://"
    )
    # Every evalhub process shares one configuration.
    for name in ("web", "scoring", "default", "beat", "migrate"):
        assert services[name]["environment"] == env, name


def _gunicorn_settings(**env: str) -> dict[str, object]:
    """gunicorn.conf.py as gunicorn reads it (its own loader), with ``env`` set."""
    import os
    from unittest import mock

    from gunicorn.app.base import Application
    from gunicorn.config import Config

    class Loader(Application):
        def init(self, parser, opts, args):  # noqa: ANN001, ANN201, ARG002
            return None

        def load(self):  # noqa: ANN201
            return None

    with mock.patch.dict(os.environ, env):
        app = Loader.__new__(Loader)
        app.cfg = Config()
        app.load_config_from_file(str(REPO_ROOT / "gunicorn.conf.py"))
    return {
        name: app.cfg.settings[name].get()
        for name in ("reuse_port", "workers", "threads")
    }


def test_gunicorn_conf_spreads_connections_and_sizes_the_web_layout():
    import os

    conf = _gunicorn_settings(WEB_CONCURRENCY="", WEB_THREADS="")
    assert conf == {"reuse_port": True, "workers": os.cpu_count(), "threads": 8}
    conf = _gunicorn_settings(WEB_CONCURRENCY="3", WEB_THREADS="2")
    assert (conf["workers"], conf["threads"]) == (3, 2)
    # The container image carries the file next to manage.py (its working folder).
    assert "gunicorn.conf.py" in (REPO_ROOT / "deploy" / "Dockerfile").read_text()


def test_the_image_writes_the_bytecode_of_the_sources_its_processes_run(tmp_path):  # noqa: ANN001
    """The image sets PYTHONDONTWRITEBYTECODE and its processes import evalhub and
    tasks from /app (their working folder), not from site-packages: the
    Dockerfile's own compile step, run here on a copy, leaves a .pyc beside every
    source, which a process started afterwards loads instead of compiling."""
    import os
    import re
    import shutil
    import subprocess
    import sys

    dockerfile = (REPO_ROOT / "deploy" / "Dockerfile").read_text()
    assert re.search(r"^ENV .*PYTHONDONTWRITEBYTECODE=1", dockerfile, re.M)
    step = re.search(r"python -m compileall[^\n&]*", dockerfile)
    assert step, "the Dockerfile compiles nothing"
    argv = shlex.split(step.group(0))
    folders = [a for a in argv[3:] if not a.startswith("-")]
    assert set(folders) == {"evalhub", "tasks"}
    for folder in folders:
        shutil.copytree(
            REPO_ROOT / folder, tmp_path / folder,
            ignore=shutil.ignore_patterns("__pycache__"),
        )  # fmt: skip
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    subprocess.run([sys.executable, *argv[1:]], cwd=tmp_path, env=env, check=True)
    sources = [p for f in folders for p in (tmp_path / f).rglob("*.py")]
    assert sources
    missing = [
        str(p.relative_to(tmp_path))
        for p in sources
        if not list((p.parent / "__pycache__").glob(f"{p.stem}.*.pyc"))
    ]
    assert not missing, missing
    loaded = subprocess.run(
        [sys.executable, "-v", "-c", "import tasks.common.plotting"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=True,
    ).stderr  # fmt: skip
    assert f"code object from '{tmp_path}/tasks/common/__pycache__/plotting." in loaded


def test_up_runs_a_worker_for_scoring_alone():
    """Issue 43.11: under ``manage.py up`` scoring has a worker of its own, as in the
    Procfile, so an upload never waits behind a refresh drawing figures."""
    from evalhub.competitions.management.commands.up import _programs

    programs = _programs(bind="127.0.0.1:8000", workers=1)
    workers = [list(p.argv) for p in programs.values() if "worker" in p.argv]
    assert _consumed(workers) == _routed_queues()
    assert sorted(_consumed([argv]) == {"scoring"} for argv in workers) == [
        False,
        True,
    ]
