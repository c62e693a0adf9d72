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
    assert _consumed([commands["scoring"]]) == {"scoring"}


def test_compose():
    compose = yaml.safe_load((REPO_ROOT / "deploy" / "compose.yaml").read_text())
    services = compose["services"]
    assert {"postgres", "redis", "minio", "web", "scoring", "default", "beat"} <= set(
        services
    )
    commands = [s["command"] for s in services.values() if "command" in s]
    assert _consumed(commands) == _routed_queues()
    env = services["web"]["environment"]
    assert env["EVALHUB_STORAGE"] == "s3" and env["DATABASE_URL"].startswith(
        "postgres://"
    )
    # Every evalhub process shares one configuration.
    for name in ("web", "scoring", "default", "beat", "migrate"):
        assert services[name]["environment"] == env, name
