"""``python -m tests.reliability.worker_main -A evalhub worker ...``: the celery command
with the test-only probe task type registered first, and each distinct figure drawn
once per process (``tests/worker_main.py``)."""

from __future__ import annotations

import sys

from tasks import registry
from tests import worker_main  # noqa: F401 - the figures drawn once
from tests.reliability import probe

registry.REGISTRY[probe.SLUG] = probe.PATH

if __name__ == "__main__":
    from celery.__main__ import main

    sys.exit(main())
