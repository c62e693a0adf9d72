"""``python -m tests.worker_main -A evalhub worker ...``: the celery command, each
distinct figure drawn once per process (``tests/plot_cache.py``), as in the test
processes: the worker a test process keeps for its tests (``tests/workers.py``) draws
the same demo run's figures and analyses for test after test."""

from __future__ import annotations

import sys

from tests import plot_cache

plot_cache.install()

if __name__ == "__main__":
    from celery.__main__ import main

    sys.exit(main())
