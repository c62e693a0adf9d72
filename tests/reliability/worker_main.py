"""``python -m tests.reliability.worker_main -A evalhub worker ...``: the celery command
with the test-only probe task type registered first."""

from __future__ import annotations

import sys

from tasks import registry
from tests.reliability import probe

registry.REGISTRY[probe.SLUG] = probe.PATH

if __name__ == "__main__":
    from celery.__main__ import main

    sys.exit(main())
