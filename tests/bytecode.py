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
    gunicorn, ``manage.py up``, the CLI) compiled the project's modules from source
    again, and each test process rewrote every test module's asserts again. The
    project's bytecode is written once here (``compileall`` writes it whatever the
    variable says; an unchanged module is skipped), and the test processes let
    pytest keep its rewritten test modules. Only ``__pycache__`` folders, which git
    ignores, are written."""
    if not sys.dont_write_bytecode:
        return  # Python writes bytecode itself
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        for package in ("evalhub", "tasks", "tests"):
            compileall.compile_dir(ROOT / package, quiet=1, workers=1)
    sys.dont_write_bytecode = False
