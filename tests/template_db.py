"""On PostgreSQL, every test process's database is a copy of one template database,
migrated once for the set of migrations it holds (``CREATE DATABASE ... TEMPLATE``,
Django's ``TEST["TEMPLATE"]``): the test processes of a run, and the runs after it,
do not each run the project's migrations again (each process spent several seconds
of CPU on them).

The template is named after a digest of every migration file and Django's version,
so a changed migration makes a new template (the older ones stay: a run on
another checkout may be copying one; ``DROP DATABASE`` them by hand). It is built by one process at a time (an advisory
lock on the server), in a database of its own that is renamed to the template's
name only once migrated: a template under that name is always complete. Django
still runs ``migrate`` on each copy, which finds every migration applied."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from tests.paths import REPO_ROOT

PREFIX = "evalhub_template_"
#: The advisory lock the processes take while one of them builds the template.
_LOCK = 0x6576616C  # "eval"


def digest() -> str:
    found = hashlib.sha256(version("django").encode())
    for path in sorted(REPO_ROOT.glob("evalhub/*/migrations/*.py")):
        found.update(str(path.relative_to(REPO_ROOT)).encode() + b"\0")
        found.update(path.read_bytes())
    return found.hexdigest()[:16]


def use(settings_dict: dict) -> None:  # type: ignore[type-arg]
    """Point the test database of ``settings_dict`` (PostgreSQL only) at the
    template, building the template first if there is none for these migrations."""
    if not settings_dict["ENGINE"].endswith("postgresql"):
        return
    name = PREFIX + digest()
    _ensure(settings_dict, name)
    settings_dict.setdefault("TEST", {})["TEMPLATE"] = name


def _connect(settings_dict: dict):  # type: ignore[no-untyped-def, type-arg]  # noqa: ANN202
    import psycopg

    return psycopg.connect(
        dbname="postgres",
        user=settings_dict["USER"] or None,
        password=settings_dict["PASSWORD"] or None,
        host=settings_dict["HOST"] or None,
        port=settings_dict["PORT"] or None,
        autocommit=True,
    )


def _ensure(settings_dict: dict, name: str) -> None:  # type: ignore[type-arg]
    with _connect(settings_dict) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (_LOCK,))
        try:
            exists = conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", (name,)
            ).fetchone()
            if exists:
                return
            building = f"{name}_building"
            # A build cut short (its process killed) left this behind.
            conn.execute(f'DROP DATABASE IF EXISTS "{building}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{building}"')
            _migrate(building)
            conn.execute(f'ALTER DATABASE "{building}" RENAME TO "{name}"')
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK,))


def _migrate(database: str) -> None:
    """``manage.py migrate`` on ``database``, in a process of its own (this
    process's connections stay on its own database)."""
    url = urlsplit(os.environ["DATABASE_URL"])
    env = {**os.environ, "DATABASE_URL": urlunsplit(url._replace(path=f"/{database}"))}
    subprocess.run(  # noqa: S603
        [sys.executable, str(Path(REPO_ROOT) / "manage.py"), "migrate", "-v", "0"],
        cwd=REPO_ROOT,
        env=env,
        check=True,
    )
