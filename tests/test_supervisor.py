"""The supervisor of ``manage.py up`` with throwaway processes (no Celery): a program
that keeps dying is started again with a growing back-off, and stopping reaches the
processes a program forked and one that ignores SIGTERM."""

from __future__ import annotations

import signal
import sys
import time

from evalhub.supervisor import Program, Supervisor
from tests.processes import alive, descendants
from tests.reliability.conftest import wait_for

DIES = [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"]
#: Forks a grandchild, then waits; ignores SIGTERM (stop must escalate to SIGKILL).
STUBBORN = [
    sys.executable,
    "-c",
    "import signal, subprocess, sys, time\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
    "print('forked', flush=True)\n"
    "time.sleep(600)\n",
]


def test_a_dying_program_is_restarted_with_a_growing_back_off():
    logs: list[str] = []
    supervisor = Supervisor(log=logs.append, first_delay=0.05, max_delay=0.2)
    supervisor.start(Program("crashy", DIES))
    started = time.monotonic()
    try:

        def restarted_four_times() -> bool:
            supervisor.check()
            return supervisor.children["crashy"].restarts >= 4

        wait_for(restarted_four_times, "four restarts", timeout=60)
    finally:
        supervisor.stop()
    delays = [line.rsplit(" in ", 1)[1] for line in logs if "starting it again" in line]
    assert delays[:5] == ["0.05 s", "0.1 s", "0.2 s", "0.2 s", "0.2 s"][: len(delays)]
    assert len(delays) >= 4 and "exited with status -9" in logs[0]
    assert time.monotonic() - started >= 0.05 + 0.1 + 0.2 + 0.2


def test_stop_ends_forked_children_and_programs_that_ignore_sigterm(tmp_path):
    logs: list[str] = []
    supervisor = Supervisor(log=logs.append, stop_timeout=1)
    proc = supervisor.start(Program("stubborn", STUBBORN))
    wait_for(lambda: len(descendants(proc.pid)) == 1, "the grandchild", timeout=30)
    family = {proc.pid, *descendants(proc.pid)}
    supervisor.stop()
    # SIGKILL is delivered asynchronously: the grandchild ends a moment later.
    wait_for(lambda: not [p for p in family if alive(p)], "the family", timeout=10)
    assert proc.returncode == -signal.SIGKILL
    assert logs == ["stopping stubborn", "stubborn did not stop in time; killing it"]
