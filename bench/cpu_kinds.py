"""Run a command and print the CPU its processes spent, by kind of process (Linux):
the test processes, Chromium's renderers, browser and GPU processes, Playwright's
driver, the Celery workers, gunicorn, the ``manage.py`` commands, PostgreSQL's
backends, and so on.

    .venv/bin/python bench/cpu_kinds.py .venv/bin/pytest -q

While the command runs, every process that started after it (its own and any
other: PostgreSQL's backends are the postmaster's children) is read from
``/proc`` every half second; a process's kind is read from its command line when
first seen. A process that lives less than half a second between two readings is
missed, and the last half second of each process is not counted: the table is a
share, not a total (``bench/cpu_tree.py`` gives the total of the command's own
tree). Run it on a quiet machine: whatever else starts meanwhile is counted too."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter

TICK = os.sysconf("SC_CLK_TCK")
KINDS = (
    ("--type=renderer", "Chromium renderers"),
    ("--type=gpu-process", "Chromium GPU process"),
    ("--type=utility", "Chromium utility processes"),
    ("chromium", "Chromium browser processes"),
    ("playwright/driver", "Playwright's driver (Node.js)"),
    ("worker_main", "Celery workers the tests start"),
    ("celery", "Celery workers `up` starts"),
    ("gunicorn", "gunicorn"),
    ("manage.py", "manage.py commands (`up`, `shell`, ...)"),
    ("exec(eval(sys.stdin", "test processes (xdist workers)"),
    ("pytest", "pytest"),
    ("postgres", "PostgreSQL backends"),
    ("redis-server", "Redis"),
    ("luatex", "LuaLaTeX"),
    ("python", "other Python processes"),
)


def kind(command: str) -> str:
    for needle, name in KINDS:
        if needle in command:
            return name
    return "other: " + command.split(" ", 1)[0].rsplit("/", 1)[-1][:40]


def _boot_ticks_now() -> float:
    with open("/proc/uptime") as uptime:  # noqa: PTH123
        return float(uptime.read().split()[0]) * TICK


def read(since: float, seen: dict[tuple[str, str], list]) -> None:  # type: ignore[type-arg]
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as stat:  # noqa: PTH123
                fields = stat.read()
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:  # noqa: PTH123
                command = cmdline.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        rest = fields[fields.rindex(")") + 2 :].split()
        started = float(rest[19])
        if started < since:
            continue
        cpu = (int(rest[11]) + int(rest[12])) / TICK
        key = (pid, rest[19])
        if key in seen:
            seen[key][1] = cpu
        elif command.strip():  # a zombie's command line is empty: skip until known
            seen[key] = [kind(command), cpu]


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    since = _boot_ticks_now()
    seen: dict[tuple[str, str], list] = {}  # type: ignore[type-arg]
    start = time.monotonic()
    process = subprocess.Popen(argv)  # noqa: S603
    while process.poll() is None:
        read(since, seen)
        time.sleep(0.5)
    wall = time.monotonic() - start
    by_kind: Counter[str] = Counter()
    count: Counter[str] = Counter()
    for name, cpu in seen.values():
        by_kind[name] += cpu
        count[name] += 1
    total = sum(by_kind.values())
    print(f"cpu_kinds: {total:.1f} s of CPU seen in {wall:.1f} s", file=sys.stderr)
    for name, cpu in by_kind.most_common():
        share = 100 * cpu / total if total else 0
        print(
            f"{cpu:8.1f} s {share:5.1f} % {count[name]:5d} processes  {name}",
            file=sys.stderr,
        )
    return process.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
