"""Bytecode for the test run (``tests/conftest.py`` calls :func:`kept`)."""

from __future__ import annotations

import compileall
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def kept() -> None:
    """Where ``PYTHONDONTWRITEBYTECODE`` is set (many machines and images), Python
    keeps no bytecode: every process the tests start (xdist workers, Celery workers,
    gunicorn, ``manage.py up``, the CLI) would compile its imports from source again,
    and each test process would rewrite every test module's asserts again. So the
    test run writes bytecode whatever the variable says: the project's modules here
    (``compileall`` writes it whatever the variable says; an unchanged module is
    skipped), and the rest by each process as it first imports a module, this one
    and every process it starts (the variable is taken out of their environment).
    The installed packages' bytecode is thus written for the modules the tests
    import, a fraction of the 14,000 the dev extras install: the README's test
    command installs without ``--compile-bytecode`` (``tests/test_readme.py``).
    Only ``__pycache__`` folders, which git ignores, are written."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    if not sys.dont_write_bytecode:
        return  # Python writes bytecode itself
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        for package in ("evalhub", "tasks", "tests"):
            compileall.compile_dir(ROOT / package, quiet=1, workers=1)
    sys.dont_write_bytecode = False
