"""``python -m tests.reliability.supervised_main NODE SCHEDULE``: the supervisor of
``manage.py up`` keeping a probe-enabled Celery worker (node name NODE) and beat alive,
with the environment of the calling test (its database and private broker), until
SIGTERM."""

from __future__ import annotations

import signal
import sys

from evalhub import worker_queues
from evalhub.supervisor import Program, Supervisor, stop_on_signals


def main(node: str, schedule: str) -> None:
    celery = [sys.executable, "-m", "tests.reliability.worker_main", "-A", "evalhub"]
    supervisor = Supervisor(
        log=lambda message: print(f"supervisor: {message}", flush=True),
        first_delay=0.5,
    )
    stop_on_signals()
    try:
        supervisor.start(
            Program(
                "worker",
                [
                    *celery,
                    "worker",
                    "-Q",
                    worker_queues.argument("all"),
                    "-c",
                    "1",
                    "--without-mingle",
                    "--without-gossip",
                    "--loglevel",
                    "INFO",
                    "-n",
                    node,
                ],
                on_parent_death=signal.SIGKILL,
            )  # fmt: skip
        )
        supervisor.start(
            Program("beat", [*celery, "beat", "-s", schedule, "--loglevel", "WARNING"])
        )
        supervisor.watch()
    finally:
        supervisor.stop()


if __name__ == "__main__":
    main(*sys.argv[1:3])
