"""Keeps the processes of the embedded stack (``manage.py up``) running: a program that
dies (a worker SIGKILLed by the kernel's OOM killer, a crashed beat) is started again
after a back-off, logged, while the others keep running; stopping the supervisor stops
every process it started, their children included.

Each program runs in a process group of its own (so stopping it reaches the processes
it forked: Celery's pool, gunicorn's workers) and, on Linux, asks the kernel for a
signal when the supervisor dies (``PR_SET_PDEATHSIG``), so even a SIGKILLed supervisor
leaves nothing behind: Celery's pool processes and gunicorn's workers in turn die with
their own parent. No Django here: plain processes."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

PR_SET_PDEATHSIG = 1


@dataclass
class Program:
    name: str
    argv: Sequence[str]
    #: Sent by the kernel when the supervisor dies without stopping it. SIGTERM lets a
    #: server finish cleanly (Redis saves, gunicorn closes); a worker gets SIGKILL, as
    #: its run would only be scored again (acks_late and the sweeper re-queue it).
    on_parent_death: int = signal.SIGTERM
    env: dict[str, str] | None = None
    #: A service the other programs use (Redis): stopped once they have ended.
    stop_last: bool = False


@dataclass
class _Child:
    program: Program
    proc: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    restart_at: float | None = None
    delay: float = 0.0
    restarts: int = 0


class Supervisor:
    """Start programs with :meth:`start`, then call :meth:`watch` from the main thread
    (the kernel's parent-death signal follows the thread that forked) until it
    returns, and :meth:`stop` in a ``finally``."""

    def __init__(
        self,
        *,
        log: Callable[[str], None],
        first_delay: float = 1.0,
        max_delay: float = 30.0,
        stable_after: float = 60.0,
        stop_timeout: float = 20.0,
    ) -> None:
        self.log = log
        self.first_delay = first_delay
        self.max_delay = max_delay
        self.stable_after = stable_after
        self.stop_timeout = stop_timeout
        self.children: dict[str, _Child] = {}

    def start(self, program: Program) -> subprocess.Popen[bytes]:
        child = self.children.setdefault(program.name, _Child(program))
        child.program = program
        return self._spawn(child)

    def _spawn(self, child: _Child) -> subprocess.Popen[bytes]:
        program = child.program
        child.proc = subprocess.Popen(
            list(program.argv),
            env=program.env,
            process_group=0,
            preexec_fn=_die_with(os.getpid(), program.on_parent_death),
        )
        child.started_at = time.monotonic()
        child.restart_at = None
        return child.proc

    def check(self) -> None:
        """Notice programs that exited and start those whose back-off has passed."""
        now = time.monotonic()
        for name, child in self.children.items():
            proc = child.proc
            if proc is not None and _exited(proc.pid):
                _reap(proc)
                if now - child.started_at >= self.stable_after:
                    child.delay = 0.0
                child.delay = min(
                    self.max_delay, child.delay * 2 if child.delay else self.first_delay
                )
                child.proc, child.restart_at = None, now + child.delay
                self.log(
                    f"{name} (pid {proc.pid}) exited with status {proc.returncode}; "
                    f"starting it again in {child.delay:g} s"
                )
            elif child.restart_at is not None and now >= child.restart_at:
                child.restarts += 1
                new = self._spawn(child)
                self.log(
                    f"{name} started again (pid {new.pid}, restart {child.restarts})"
                )

    def watch(self, *, interval: float = 0.2) -> None:
        """Check every ``interval`` seconds until a stop signal arrives (SIGINT and
        SIGTERM raise :class:`Stopped`, see :func:`stop_on_signals`)."""
        try:
            while True:
                self.check()
                time.sleep(interval)
        except Stopped:
            return

    def stop(self) -> None:
        """Stop the programs: SIGTERM to every one at once (a server closing, a
        worker finishing its job, beat saving its schedule take their time side
        by side, not one after the other), SIGKILL to whatever still runs in
        their process groups after ``stop_timeout`` seconds; then, the same way, the
        ``stop_last`` programs the others used (Redis). So stopping takes at most
        twice ``stop_timeout``, however many programs there are."""
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C stops nothing
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        children = list(self.children.values())[::-1]
        self.log(f"stopping {', '.join(c.program.name for c in children) or 'nothing'}")
        self._stop_together([c for c in children if not c.program.stop_last])
        self._stop_together([c for c in children if c.program.stop_last])

    def _stop_together(self, children: list[_Child]) -> None:
        running: dict[int, str] = {}
        procs = []
        for child in children:
            proc, child.proc, child.restart_at = child.proc, None, None
            if proc is not None:
                running[proc.pid] = child.program.name
                procs.append(proc)
        for proc in stop_groups(procs, timeout=self.stop_timeout):
            self.log(f"{running[proc.pid]} did not stop in time; killing it")


def stop_groups(procs: Sequence[subprocess.Popen], *, timeout: float) -> list:  # type: ignore[type-arg]
    """Stop processes each leading a process group of its own: SIGTERM to every
    leader at once (each stops its own children as it means to: a Celery worker
    lets its pool finish the job in hand, gunicorn its workers their requests),
    SIGKILL to what is left of each group once its leader exited or ``timeout``
    seconds passed, every leader reaped. Returns the processes that had not
    exited by then (killed). The one way the stack, the tests and the benchmarks
    stop the processes they started."""
    running = [proc for proc in procs if proc.returncode is None]
    for proc in running:
        _signal(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not all(_exited(p.pid) for p in running):
        time.sleep(0.05)
    late = [proc for proc in running if not _exited(proc.pid)]
    for proc in running:
        _reap(proc)
    return late


class Stopped(Exception):  # noqa: N818 - a request, not an error
    """SIGINT or SIGTERM arrived."""


def stop_on_signals() -> None:
    """Make SIGINT and SIGTERM raise :class:`Stopped` in the main thread, wherever it
    is (starting programs, migrating, watching)."""

    def raise_stopped(signum: int, _frame: object) -> None:
        raise Stopped(signal.Signals(signum).name)

    signal.signal(signal.SIGINT, raise_stopped)
    signal.signal(signal.SIGTERM, raise_stopped)


def _exited(pid: int) -> bool:
    """Whether the process exited, leaving it unreaped: while it is a zombie its pid,
    and so its process group's id, cannot be reused by an unrelated process."""
    try:
        return (
            os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        )
    except ChildProcessError:
        return True


def _reap(proc: subprocess.Popen[bytes]) -> None:
    """Kill what is left of the process's group (processes it forked, e.g. a pool child
    busy scoring), then collect its exit status."""
    _kill_group(proc.pid, signal.SIGKILL)
    proc.wait()


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _kill_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _die_with(parent: int, sig: int) -> Callable[[], None]:
    prctl = _prctl()

    def preexec() -> None:  # runs in the child between fork and exec
        if prctl is not None:
            prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0)
        if os.getppid() != parent:  # the supervisor died before prctl took effect
            os._exit(1)

    return preexec


def _prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None  # elsewhere only a supervisor that is stopped stops its programs
    return ctypes.CDLL(None, use_errno=True).prctl
