"""Run a command and print the CPU of every process it started, however they
ended (Linux).

``/usr/bin/time`` counts the children its command waited for. Chromium's zygote
and renderers are often left to be reaped by init when the browser closes, so a
run of the browser tests that launches Chromium per test shows a few seconds of
CPU where its renderers spent minutes. Here the command runs under a *child
subreaper* (``PR_SET_CHILD_SUBREAPER``): orphaned descendants come back to this
process, which reaps them, so their CPU is counted too.

    .venv/bin/python bench/cpu_tree.py .venv/bin/pytest -n 0 tests/browser

prints, after the command ends: CPU user + sys of the whole tree, wall time,
the load average before and after, and any descendant still running 30 s after
the command ended (not counted)."""

from __future__ import annotations

import ctypes
import os
import resource
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")
    load_before = os.getloadavg()
    start = time.monotonic()
    code = subprocess.Popen(argv).wait()  # noqa: S603
    wall = time.monotonic() - start
    left = []
    deadline = time.monotonic() + 30
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            if time.monotonic() > deadline:
                left = [
                    p
                    for p in os.listdir("/proc")
                    if p.isdigit() and _parent(p) == os.getpid()
                ]
                break
            time.sleep(0.2)
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_after = os.getloadavg()
    print(
        f"cpu_tree: CPU {used.ru_utime + used.ru_stime:.1f} s"
        f" (user {used.ru_utime:.1f}, sys {used.ru_stime:.1f}), wall {wall:.1f} s,"
        f" load average {load_before[0]:.1f} before, {load_after[0]:.1f} after"
        + (f"; still running, not counted: {left}" if left else ""),
        file=sys.stderr,
    )
    return code


def _parent(pid: str) -> int:
    try:
        stat = open(f"/proc/{pid}/stat").read()  # noqa: PTH123, SIM115
    except OSError:
        return -1
    return int(stat[stat.rindex(")") + 2 :].split()[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
