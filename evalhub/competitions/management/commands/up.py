"""Run the whole platform on one machine: an embedded Redis (unless REDIS_URL is set),
migrate, the demo tasks, two Celery workers (one scoring runs, one for refreshes,
mails and the rest, as in production), Celery beat and the web server (gunicorn).

The processes are supervised (``evalhub/supervisor.py``): one that dies (a worker
killed by the OOM killer) is started again after a back-off while the others keep
serving; Ctrl-C or SIGTERM stops them all within ``2 * STOP_SECONDS`` (a program
still busy then, e.g. a worker scoring a run, is killed: the run is scored again
later), and on Linux they die with the command even if it is SIGKILLed.

Links in mails start with the address given by ``--bind`` unless EVALHUB_SITE_URL
names the public one (``competitions/public_url.py``)."""

from __future__ import annotations

import gc
import os
import signal
import sys
import time
from datetime import UTC, datetime

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from evalhub import embedded_redis, worker_queues
from evalhub.competitions import public_url
from evalhub.supervisor import Program, Stopped, Supervisor, stop_on_signals

#: Seconds the programs get to stop after Ctrl-C, then Redis as long again.
STOP_SECONDS = 2.0


class Command(BaseCommand):
    help = (
        "Start web + Celery worker + beat (+ embedded Redis) with the demo tasks. "
        "Everything they keep (the SQLite database, uploads, mails, the embedded "
        "Redis's socket and data) is in the data folder named by the variable "
        "EVALHUB_VAR_DIR (default: var/ in the repository; now {var}): "
        "EVALHUB_VAR_DIR=~/evalhub-data manage.py up starts a separate instance. "
        "Links in mails start with EVALHUB_SITE_URL, by default http:// and the "
        "--bind address."
    )

    def create_parser(self, prog_name: str, subcommand: str, **kwargs):  # noqa: ANN003, ANN201
        self.help = self.help.format(var=settings.VAR_DIR)
        return super().create_parser(prog_name, subcommand, **kwargs)

    def add_arguments(self, parser):  # noqa: ANN001, ANN201
        parser.add_argument(
            "--bind", default="127.0.0.1:8000", help="host:port for the web server"
        )
        parser.add_argument(
            "--no-demo", action="store_true", help="do not create the demo tasks"
        )
        parser.add_argument(
            "--workers",
            type=int,
            default=1,
            help="processes of the scoring worker (refreshes and mails have a "
            "worker of their own)",
        )

    def handle(self, *args, bind: str, no_demo: bool, workers: int, **options):  # noqa: ANN002, ANN003, ANN201
        _public_address(bind)
        supervisor = Supervisor(log=self._log, stop_timeout=STOP_SECONDS)
        stop_on_signals()
        try:
            self._start(supervisor, bind=bind, no_demo=no_demo, workers=workers)
            supervisor.watch()
        except Stopped:
            pass
        finally:
            supervisor.stop()
            # Nothing is left to clean up; the interpreter's last collection over
            # everything the demo loaded took seconds after the programs had ended.
            gc.freeze()

    def _start(
        self, supervisor: Supervisor, *, bind: str, no_demo: bool, workers: int
    ) -> None:
        programs = _programs(bind=bind, workers=workers)
        if settings.USING_EMBEDDED_REDIS:
            socket = settings.EMBEDDED_REDIS_SOCKET
            if embedded_redis.is_running(socket):
                self._log(f"using the Redis already answering on {socket}")
            else:
                supervisor.start(
                    Program(
                        "redis",
                        embedded_redis.server_argv(
                            socket, settings.VAR_DIR / "redis.db"
                        ),
                        stop_last=True,
                    )
                )
                _wait_for(lambda: embedded_redis.is_running(socket), "Redis", 30)
                self._log(f"embedded Redis on {socket}")
        call_command("migrate", interactive=False, verbosity=0)
        call_command("collectstatic", interactive=False, verbosity=0)
        supervisor.start(programs["worker"])
        supervisor.start(programs["refresh-worker"])
        supervisor.start(programs["beat"])
        if not no_demo:
            self.stdout.write(
                "creating demo tasks (their runs are scored by the worker)…"
            )
            call_command("seed_demo")
        supervisor.start(programs["web"])
        self.stdout.write(
            self.style.SUCCESS(
                f"evalhub is up: http://{bind}/  (Ctrl-C stops everything)"
            )
        )
        self.stdout.write(f"links in mails start with {settings.SITE_URL}")
        if not settings.EMAIL_HOST:
            self.stdout.write(
                "no SMTP server set (EVALHUB_EMAIL_HOST): mails (sign-up "
                "verification, password reset) are logged here and written to "
                f"{settings.EMAIL_FILE_PATH}"
            )

    def _log(self, message: str) -> None:
        stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")
        self.stderr.write(f"{stamp} up: {message}")


def _public_address(bind: str) -> None:
    """Unless EVALHUB_SITE_URL names the public address, the one ``--bind`` serves:
    set for this process and, through the environment, for the worker that mails."""
    if os.environ.get("EVALHUB_SITE_URL"):
        return
    address = public_url.from_bind(bind)
    os.environ["EVALHUB_SITE_URL"] = address
    settings.SITE_URL = address


def _programs(*, bind: str, workers: int) -> dict[str, Program]:
    python = sys.executable
    celery = [python, "-m", "celery", "-A", "evalhub"]
    return {
        # Scoring has a worker of its own, as in production (Procfile, deploy/): an
        # upload never waits behind the figures a refresh job is drawing.
        "worker": Program(
            "worker",
            [
                *celery,
                "worker",
                "-Q",
                worker_queues.argument("scoring"),
                "-c",
                str(workers),
                "--loglevel",
                "INFO",
                "-n",
                f"scoring-{os.getpid()}@%h",
            ],
            # Its run is scored again anyway (acks_late, the sweeper): no need to
            # wait for it to finish when the command is gone.
            on_parent_death=signal.SIGKILL,
        ),  # fmt: skip
        "refresh-worker": Program(
            "refresh-worker",
            [
                *celery,
                "worker",
                "-Q",
                worker_queues.argument("default"),
                "-c",
                "1",
                "--loglevel",
                "INFO",
                "-n",
                f"default-{os.getpid()}@%h",
            ],
            on_parent_death=signal.SIGKILL,  # refreshes are sent again by beat
        ),  # fmt: skip
        "beat": Program(
            "beat",
            [
                *celery,
                "beat",
                "--loglevel",
                "INFO",
                "--schedule",
                str(settings.VAR_DIR / "celerybeat-schedule"),
            ],
        ),  # fmt: skip
        "web": Program(
            "web",
            [
                python,
                "-m",
                "gunicorn",
                "evalhub.wsgi",
                "--config",
                str(settings.BASE_DIR / "gunicorn.conf.py"),
                "--bind",
                bind,
                "--workers",
                "2",
                # One thread per process, as before gunicorn.conf.py: SQLite and the
                # embedded Redis of the demo serve one machine's visitors.
                "--threads",
                "1",
                "--access-logfile",
                "-",
            ],
        ),  # fmt: skip
    }


def _wait_for(predicate, what: str, seconds: float) -> None:  # noqa: ANN001
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise CommandError(f"{what} did not start within {seconds:g} s")
        time.sleep(0.1)
