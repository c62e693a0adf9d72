"""The Celery application. Broker and result settings come from Django settings
(``CELERY_*``); jobs live in ``evalhub/<app>/jobs.py``."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalhub.settings")
# Celery's Django fixup runs Django's system checks at every worker start and drops
# their messages (it neither prints nor stops on one): a quarter of a second of CPU
# per start that nobody reads. They run where they are read: `manage.py check`,
# `migrate` and `up` at deploy, and the test suite.
os.environ.setdefault("CELERY_SKIP_CHECKS", "1")

app = Celery("evalhub")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(related_name="jobs")

log = logging.getLogger(__name__)


def yield_cpu(niceness: int, *, autogroup: Path = Path("/proc/self/autogroup")) -> int:
    """Lower this process's CPU priority to ``niceness`` (never raise it); returns
    the nice level now in force. The pool's processes inherit it.

    On Linux with autogroups (the desktop and container default), the scheduler first
    shares the CPU between sessions and only then by nice level inside a session, so a
    worker started in a session of its own (``setsid``, a supervisor, a bench script)
    would compete with the web on equal terms whatever its nice level: a session
    leader therefore lowers its session's autogroup too. A worker sharing a session
    with the web (``manage.py up``) leaves the group alone, or it would slow the web
    down with it. Under systemd, services sit in cgroups of their own and autogroups do
    not apply: set ``CPUWeight=`` there (docs/deploy.md)."""
    current = os.nice(0)
    if niceness > current:
        current = os.nice(niceness - current)
    if os.getsid(0) == os.getpid():
        try:
            # "/autogroup-85 nice 0"
            group_nice = int(autogroup.read_text().split()[-1])
            if niceness > group_nice:
                autogroup.write_text(f"{niceness}\n")
        except (OSError, ValueError, IndexError) as exc:
            # No autogroups here, or not permitted; the nice level still holds.
            log.info("worker autogroup left as it is: %s", exc)
    return current


@signals.worker_init.connect
def _yield_cpu_to_the_web(**_: object) -> None:
    from django.conf import settings

    if settings.WORKER_NICE:
        yield_cpu(settings.WORKER_NICE)


@signals.worker_init.connect
def _render_boards_ahead(**_: object) -> None:
    """Scores change in workers: render the new public boards there, before they
    show (``boardcache.render_ahead_with``), rather than in a viewer's request."""
    from evalhub.competitions.services.boards import board_pages, boardcache

    boardcache.render_ahead_with(board_pages.warm_leaderboard)
