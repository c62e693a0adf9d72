"""The services the load benchmarks start on 127.0.0.1 only, in a temporary folder,
and always stop: a private redis-server, a throwaway PostgreSQL database (or SQLite),
gunicorn, N Celery workers and one beat; plus the BUCC demo task with participant
accounts.
Used by ``traffic.py`` and ``drain.py`` (its other nodes: ``nodes.py``)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlparse, urlunparse

from evalhub import worker_queues

ROOT = Path(__file__).resolve().parents[1]
TASK, PHASE = "demo-bilingual-term-alignment", "evaluation"
PASSWORD = "load-bench-pw-1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait(predicate, what: str, timeout: float) -> None:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise SystemExit(f"timed out after {timeout} s waiting for {what}")


def machine_load() -> dict[str, object]:
    """What else ran on the machine: ``os.getloadavg`` (1, 5, 15 min) and CPUs."""
    return {"cpus": os.cpu_count(), "loadavg": [round(x, 2) for x in os.getloadavg()]}


def save(result: dict[str, object], *, out: str, name: str) -> None:
    """Print ``result`` and write it to ``out/<name>-<UTC time>.json``."""
    import json

    print(json.dumps(result, indent=2))
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}-{time.strftime('%Y%m%d-%H%M', time.gmtime())}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"saved {path}")


def command_line(script: str) -> str:
    """How the result was made, as a command to re-run it: the script and its options,
    without ``--out`` (where this copy was written is nobody else's business)."""
    args, skip = [], False
    for arg in sys.argv[1:]:
        if skip:
            skip = False
        elif arg == "--out":
            skip = True
        elif not arg.startswith("--out="):
            args.append(arg)
    return " ".join(["python", f"bench/{script}", *args])


def deployed_web_layout() -> tuple[int, int]:
    """gunicorn's processes and threads as ``gunicorn.conf.py`` sets them on this
    machine (``WEB_CONCURRENCY`` / ``WEB_THREADS`` included): the benchmarks' default."""
    import runpy

    conf = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    return int(conf["workers"]), int(conf["threads"])


class Stack:
    def __init__(
        self,
        *,
        database_url: str,
        extra_env: dict[str, str] | None = None,
        beat: bool = True,
    ):
        self.beat = beat
        self.tmp = Path(tempfile.mkdtemp(prefix="evalhub-bench-"))
        self.procs: list[subprocess.Popen[bytes]] = []
        self.workers: list[subprocess.Popen[bytes]] = []
        self.redis_port, self.web_port = free_port(), free_port()
        self.admin_url = database_url
        self.db_name = ""
        self.env = {
            **os.environ,
            "EVALHUB_VAR_DIR": str(self.tmp),
            "REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0",
            "DJANGO_DEBUG": "false",
            "EVALHUB_SUBMIT_RATE": "1000000/60",
            "EVALHUB_LOGIN_RATE": "1000000/60",
            "EVALHUB_LOGIN_ADDRESS_RATE": "1000000/60",
            "EVALHUB_LOG_LEVEL": "WARNING",
            **(extra_env or {}),
        }
        self.env.pop("DATABASE_URL", None)
        if database_url:
            self.db_name = f"evalhub_bench_{os.getpid()}"
            parts = urlparse(database_url)
            self.env["DATABASE_URL"] = urlunparse(
                parts._replace(path=f"/{self.db_name}")
            )

    @property
    def database(self) -> str:
        return "postgresql" if self.db_name else "sqlite"

    def __enter__(self) -> Stack:
        # SIGTERM (or SIGINT in a background job, where it is ignored) must still
        # stop the services and drop the database: turn it into SystemExit.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
        try:
            if self.db_name:
                self.sql_admin(f"CREATE DATABASE {self.db_name}")
            self._spawn(
                ["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1",
                 "--save", "", "--appendonly", "no", "--dir", str(self.tmp)],
                quiet=True,
            )  # fmt: skip
            self.manage("migrate", "-v", "0")
            self.manage("seed_demo", "--task-type", "bilingual_term_alignment")
            # Exactly one beat, as in production: the sweeper, and the statistics
            # and analyses refreshes that are due (services/boards/refreshes.py);
            # none for a benchmark that runs the jobs itself (``worker_cpu.py``).
            if self.beat:
                self._spawn(
                    [sys.executable, "-m", "celery", "-A", "evalhub", "beat",
                     "--schedule", str(self.tmp / "beat-schedule"),
                     "--loglevel", "WARNING"],
                    quiet=True,
                )  # fmt: skip
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        # Workers and gunicorn first (they still talk to Redis while stopping).
        for proc in reversed(self.procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        if self.db_name:
            self.sql_admin(f"DROP DATABASE IF EXISTS {self.db_name} WITH (FORCE)")
        shutil.rmtree(self.tmp, ignore_errors=True)

    # --- processes -------------------------------------------------------------------
    def _spawn(
        self,
        args: list[str],
        *,
        quiet: bool = False,
        env: dict | None = None,
        pin: Callable[[], None] | None = None,
    ) -> subprocess.Popen[bytes]:
        out = subprocess.DEVNULL if quiet else None
        proc = subprocess.Popen(
            args,
            cwd=ROOT,
            env=env or self.env,
            start_new_session=True,
            stdout=out,
            preexec_fn=pin,  # noqa: PLW1509 - sched_setaffinity only
        )
        self.procs.append(proc)
        return proc

    def manage(self, *args: str, timeout: float = 600) -> None:
        subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            check=True,
            timeout=timeout,
            stdout=subprocess.DEVNULL,
        )

    def shell(self, code: str, timeout: float = 600) -> None:
        self.manage("shell", "-c", code, timeout=timeout)

    def seed_board(self, teams: int) -> None:
        """``teams`` more teams on the demo board, each with one scored run
        (``tests/competitions/big_board.py``: bulk inserts); none for 0."""
        if teams:
            self.shell(
                "from evalhub.competitions.models import Phase\n"
                "from tests.competitions.big_board import seed_board\n"
                f"phase = Phase.objects.get(task__slug={TASK!r}, slug={PHASE!r})\n"
                f"seed_board(phase=phase, teams={teams})\n"
            )

    def gunicorn(
        self, *, workers: int, threads: int, config: Path | None = None, **env: str
    ) -> subprocess.Popen[bytes]:
        """gunicorn as deployed (``gunicorn.conf.py``), or with ``config`` instead
        (``cpu_hooks.py``); ``env``: variables added to the stack's for it."""
        args = [sys.executable, "-m", "gunicorn", "evalhub.wsgi",
                "-b", f"127.0.0.1:{self.web_port}", "-w", str(workers),
                "--threads", str(threads), "--log-level", "warning"]  # fmt: skip
        if config is not None:
            args += ["-c", str(config)]
        return self._spawn(args, env={**self.env, **env} if env else None)

    def worker(
        self,
        name: str,
        *,
        queues: str = worker_queues.argument("all"),
        log: Path | None = None,
        nice: int | None = None,
        env: dict[str, str] | None = None,
        cpus: set[int] | None = None,
    ) -> None:
        """A worker in a session of its own, as a supervisor starts it; with ``log``,
        its INFO log (a line per finished job) goes there; ``nice`` sets
        ``EVALHUB_WORKER_NICE`` (None: the setting's default), the CPU priority the
        worker lowers itself to (evalhub/celery.py); ``env``: another node's
        environment (default: the stack's); ``cpus``: the only cores it and its pool
        may run on (a node of that many cores)."""
        env = dict(env or self.env)
        pin = None if cpus is None else (lambda: os.sched_setaffinity(0, cpus))
        if nice is not None:
            env["EVALHUB_WORKER_NICE"] = str(nice)
        args = [sys.executable, "-m", "celery", "-A", "evalhub", "worker", "-Q", queues,
                "-c", "1", "--without-mingle", "--without-gossip", "-n", f"{name}@%h",
                "--loglevel", "INFO" if log else "WARNING"]  # fmt: skip
        if log is None:
            self.workers.append(self._spawn(args, quiet=True, env=env, pin=pin))
            return
        with log.open("wb") as out:
            self.procs.append(
                subprocess.Popen(
                    args,
                    cwd=ROOT,
                    env={**env, "EVALHUB_LOG_LEVEL": "INFO"},
                    start_new_session=True,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    preexec_fn=pin,  # noqa: PLW1509 - sched_setaffinity only
                )
            )
            self.workers.append(self.procs[-1])

    def worker_nice_levels(self) -> list[int]:
        """The nice levels the workers' processes run at, read from the running
        processes (each worker lowers itself at start, see evalhub/celery.py)."""
        levels = set()
        for proc in self.workers:
            for pid in self._group(proc):
                with contextlib.suppress(OSError):
                    levels.add(os.getpriority(os.PRIO_PROCESS, pid))
        return sorted(levels)

    def _group(self, proc: subprocess.Popen[bytes]) -> list[int]:
        """The live processes in ``proc``'s process group."""
        pids = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == proc.pid:  # field 5: process group id
                pids.append(int(stat.parent.name))
        return pids

    def cpu_seconds(self, proc: subprocess.Popen[bytes]) -> float:
        """CPU time (user + system) of every live process in ``proc``'s group."""
        total = 0.0
        tick = os.sysconf("SC_CLK_TCK")
        for pid in self._group(proc):
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / tick
        return total

    # --- data ------------------------------------------------------------------------
    def add_participants(self, names: list[str], *, limit: int = 100000) -> bytes:
        """Participant accounts, one team each, approved on the demo task; raises the
        phase's limits; returns the demo's BUCC run (the bytes every bench submits)."""
        run = self.tmp / "run.tsv"
        self.shell(
            "from django.contrib.auth import get_user_model\n"
            "from evalhub.competitions.models import *\n"
            "from tasks import registry\n"
            f"task = SharedTask.objects.get(slug={TASK!r})\n"
            f"Phase.objects.filter(task=task).update(daily_limit={limit}, total_limit={limit})\n"
            f"for name in {names!r}:\n"
            f"    u = get_user_model().objects.create_user(name, password={PASSWORD!r})\n"
            "    team = Team.objects.create(name=name)\n"
            "    team.members.add(u)\n"
            "    Registration.objects.create(task=task, team=team, status='approved')\n"
            "demo = registry.get('bilingual_term_alignment').demo(seed=0)\n"
            f"open({str(run)!r}, 'wb').write(next(iter(demo.runs[0][2].values())))\n"
        )
        return run.read_bytes()

    def sql(self, query: str) -> list[tuple]:  # type: ignore[type-arg]
        url = self.env.get("DATABASE_URL")
        if url:
            import psycopg

            with psycopg.connect(url.replace("postgres://", "postgresql://", 1)) as c:
                return list(c.execute(query).fetchall())
        import sqlite3

        with sqlite3.connect(self.tmp / "evalhub.sqlite3") as c:
            return list(c.execute(query).fetchall())

    def sql_admin(self, query: str) -> None:
        import psycopg

        url = self.admin_url.replace("postgres://", "postgresql://", 1)
        with psycopg.connect(url, autocommit=True) as c:
            c.execute(query)

    def count(self, where: str, table: str = "competitions_submission") -> int:
        return int(self.sql(f"SELECT count(*) FROM {table} WHERE {where}")[0][0])
