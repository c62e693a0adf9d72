"""Run the whole platform on one machine: migrate, seed the demo tasks, start an
embedded Redis (unless REDIS_URL is set), a Celery worker, Celery beat and the web
server (gunicorn), and stop them all together on Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from evalhub import embedded_redis


class Command(BaseCommand):
    help = "Start web + Celery worker + beat (+ embedded Redis) with the demo tasks."

    def add_arguments(self, parser):  # noqa: ANN001, ANN201
        parser.add_argument(
            "--bind", default="127.0.0.1:8000", help="host:port for the web server"
        )
        parser.add_argument(
            "--no-demo", action="store_true", help="do not create the demo tasks"
        )
        parser.add_argument(
            "--workers", type=int, default=1, help="Celery worker concurrency"
        )

    def handle(self, *args, bind: str, no_demo: bool, workers: int, **options):  # noqa: ANN002, ANN003, ANN201
        redis_handle = None
        if settings.USING_EMBEDDED_REDIS:
            redis_handle = embedded_redis.start(
                settings.EMBEDDED_REDIS_SOCKET, settings.VAR_DIR / "redis.db"
            )
            self.stdout.write(f"embedded Redis on {settings.EMBEDDED_REDIS_SOCKET}")
        call_command("migrate", interactive=False, verbosity=0)
        call_command("collectstatic", interactive=False, verbosity=0)
        python = sys.executable
        env = dict(os.environ)
        procs = {
            "worker": [
                python,
                "-m",
                "celery",
                "-A",
                "evalhub",
                "worker",
                "-Q",
                "scoring,default",
                "-c",
                str(workers),
                "--loglevel",
                "INFO",
                "-n",
                f"worker-{os.getpid()}@%h",
            ],
            "beat": [
                python,
                "-m",
                "celery",
                "-A",
                "evalhub",
                "beat",
                "--loglevel",
                "INFO",
                "--schedule",
                str(settings.VAR_DIR / "celerybeat-schedule"),
            ],
            "web": [
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
                # One thread per process, as before gunicorn.conf.py: SQLite and
                # the embedded Redis of the demo serve one machine's visitors.
                "--threads",
                "1",
                "--access-logfile",
                "-",
            ],
        }
        running: dict[str, subprocess.Popen[bytes]] = {}
        stopping = False

        def stop(*_: object) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        try:
            for name in ("worker", "beat"):
                running[name] = subprocess.Popen(procs[name], env=env)
            if not no_demo:
                self.stdout.write(
                    "creating demo tasks (their runs are scored by the worker)…"
                )
                call_command("seed_demo")
            running["web"] = subprocess.Popen(procs["web"], env=env)
            self.stdout.write(
                self.style.SUCCESS(
                    f"evalhub is up: http://{bind}/  (Ctrl-C stops everything)"
                )
            )
            while not stopping:
                for name, proc in running.items():
                    if proc.poll() is not None:
                        self.stderr.write(
                            f"{name} exited with status {proc.returncode}; stopping"
                        )
                        stopping = True
                time.sleep(0.5)
        finally:
            for proc in running.values():
                if proc.poll() is None:
                    proc.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + 20
            for proc in running.values():
                try:
                    proc.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    proc.kill()
            embedded_redis.stop(redis_handle)
