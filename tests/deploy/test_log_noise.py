"""Beat's refresh tick runs every second: with the settings' logging (a fresh process,
as ``manage.py up``'s worker and beat are configured) its INFO lines are dropped,
every other job's lines and the tick's own warnings are kept."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.paths import REPO_ROOT

pytestmark = pytest.mark.django_db(False)

LOG_AS_CELERY = """
import logging, django
django.setup()
trace = logging.getLogger("celery.app.trace")
trace.info("Task %s[%s] succeeded in %ss: %r",
           "evalhub.competitions.jobs.dispatch_refreshes", "t1", 0.002, 0)
logging.getLogger("celery.beat").info(
    "Scheduler: Sending due task dispatch-refreshes (evalhub.competitions.jobs.dispatch_refreshes)")
trace.info("Task %s[%s] succeeded in %ss: %r",
           "evalhub.competitions.jobs.score_submission", "t2", 1.5, "scored")
logging.getLogger("celery.beat").warning("dispatch-refreshes could not be sent")
"""


def test_beat_ticks_do_not_fill_the_log(tmp_path):  # noqa: ANN001
    done = subprocess.run(
        [sys.executable, "-c", LOG_AS_CELERY],
        cwd=REPO_ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "evalhub.settings",
             "EVALHUB_VAR_DIR": str(tmp_path)},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "score_submission[t2] succeeded" in done.stderr
    assert "dispatch-refreshes could not be sent" in done.stderr
    assert "dispatch_refreshes[t1]" not in done.stderr
    assert "Sending due task dispatch-refreshes" not in done.stderr
