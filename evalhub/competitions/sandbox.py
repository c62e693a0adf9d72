"""Run one function in a forked child process under its own CPU-time and memory
limits, so a hostile input costs a bounded slice of one worker and nothing else.

The child inherits what the parent loaded (parsers, the test sets' inputs), sets
``RLIMIT_CPU`` and ``RLIMIT_AS`` on itself, runs the function and writes its
JSON-serialisable answer to a pipe; the parent waits with a wall-clock deadline. The
child never touches the database or the broker (it leaves with ``os._exit``), and a
child that runs out of CPU time (SIGXCPU) or memory (MemoryError), or passes the
deadline (killed), is reported as :class:`LimitExceeded`.
"""

from __future__ import annotations

import json
import os
import resource
import select
import signal
import time
from collections.abc import Callable

_PAGE = os.sysconf("SC_PAGE_SIZE")


class LimitExceeded(Exception):
    """The function needed more CPU time or memory than allowed."""

    def __init__(self, which: str):
        self.which = which  # "cpu" or "memory"
        super().__init__(which)


class ChildFailed(Exception):
    """The function raised an unexpected exception (its type only, no text)."""


def _address_space() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[0]) * _PAGE


def run_limited(
    function: Callable[[], object], *, cpu_seconds: int, memory_mb: int
) -> object:
    """``function()`` in a child with at most ``cpu_seconds`` of CPU time and
    ``memory_mb`` MiB of address space above what the parent already maps (0: no
    memory limit)."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        os.close(read_fd)
        _child(function, write_fd, cpu_seconds, memory_mb)
    os.close(write_fd)
    chunks: list[bytes] = []
    deadline = time.monotonic() + cpu_seconds * 2 + 10
    killed = False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                killed = True
                break
            ready, _, _ = select.select([read_fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(read_fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_fd)
        _, status = os.waitpid(pid, 0)
    if killed or (
        os.WIFSIGNALED(status)
        and os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGKILL)
    ):
        raise LimitExceeded("cpu")
    try:
        answer = json.loads(b"".join(chunks) or b"null")
    except ValueError:
        raise ChildFailed("no answer") from None
    if not isinstance(answer, dict):
        raise ChildFailed("no answer")
    if "limit" in answer:
        raise LimitExceeded(answer["limit"])
    if "error" in answer:
        raise ChildFailed(answer["error"])
    return answer["value"]


def _child(
    function: Callable[[], object], write_fd: int, cpu_seconds: int, memory_mb: int
) -> None:  # pragma: no cover - runs in the child
    code = 0
    try:
        signal.signal(signal.SIGXCPU, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
        if memory_mb:
            limit = _address_space() + memory_mb * 1024 * 1024
            hard = resource.getrlimit(resource.RLIMIT_AS)[1]
            if hard != resource.RLIM_INFINITY:
                limit = min(limit, hard)
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        try:
            answer: dict[str, object] = {"value": function()}
        except MemoryError:
            answer = {"limit": "memory"}
        except Exception as exc:  # noqa: BLE001 - reported by type to the parent
            answer = {"error": type(exc).__name__}
        payload = json.dumps(answer).encode()
        view = memoryview(payload)
        while view:
            written = os.write(write_fd, view)
            view = view[written:]
    except BaseException:  # noqa: BLE001
        code = 1
    finally:
        os._exit(code)
