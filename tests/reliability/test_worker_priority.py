"""Scoring yields the CPU to the web: a worker lowers itself to ``EVALHUB_WORKER_NICE``
when it starts, its pool process inherits it, and a worker that leads its own session
(a supervisor, ``setsid``) lowers its session's autogroup too, since on Linux nice
levels only count inside one autogroup (evalhub/celery.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.paths import REPO_ROOT
from tests.reliability.conftest import wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

AUTOGROUP = Path("/proc/self/autogroup")


def nice_of(pid: int) -> int:
    # Field 19 of /proc/<pid>/stat; the command name (field 2) may hold spaces.
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return int(fields[16])


def children_of(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def test_worker_and_its_pool_run_at_the_configured_nice_level(cluster):  # noqa: ANN001
    name = cluster.worker("low", EVALHUB_WORKER_NICE="7")
    cluster.wait_ready(name)
    main = cluster.procs["low"].pid
    pool = wait_for(lambda: children_of(main), "the worker's pool process", timeout=30)
    assert nice_of(main) == max(os.nice(0), 7)
    assert all(nice_of(pid) == nice_of(main) for pid in pool)
    if AUTOGROUP.exists():  # the worker leads its session: its autogroup is lowered
        assert Path(f"/proc/{main}/autogroup").read_text().split()[-1] == "7"
        # ... and ours (the test's session) is not.
        assert AUTOGROUP.read_text() != Path(f"/proc/{main}/autogroup").read_text()


def test_nice_zero_leaves_the_worker_alone(cluster):  # noqa: ANN001
    name = cluster.worker("normal", EVALHUB_WORKER_NICE="0")
    cluster.wait_ready(name)
    assert nice_of(cluster.procs["normal"].pid) == os.nice(0)


def _yield_in_child(tmp_path: Path, *, own_session: bool) -> tuple[int, str]:
    """Run ``yield_cpu(5)`` in a child process against a stand-in autogroup file."""
    group = tmp_path / "autogroup"
    group.write_text("/autogroup-1 nice 0\n")
    code = textwrap.dedent(f"""
        import os
        from pathlib import Path
        if {own_session}:
            os.setsid()
        from evalhub.celery import yield_cpu
        print(yield_cpu(5, autogroup=Path({str(group)!r})))
    """)
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True,
        check=True, timeout=60,
    )  # fmt: skip
    return int(out.stdout.split()[-1]), group.read_text()


def test_a_session_leader_lowers_its_autogroup(tmp_path):  # noqa: ANN001
    niceness, group = _yield_in_child(tmp_path, own_session=True)
    assert niceness >= 5
    assert group == "5\n"


def test_a_worker_sharing_the_web_session_leaves_the_autogroup_alone(tmp_path):  # noqa: ANN001
    niceness, group = _yield_in_child(tmp_path, own_session=False)
    assert niceness >= 5
    assert group == "/autogroup-1 nice 0\n"
