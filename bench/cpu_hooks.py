"""The gunicorn configuration ``traffic.py`` serves with: the repository's
``gunicorn.conf.py`` unchanged, plus hooks that add up the CPU time each request
costs its worker thread, per kind of request (anonymous or signed-in leaderboard,
run page, upload, other), in every web process.

Each request's CPU is ``time.thread_time()`` around it (gunicorn's ``pre_request``
and ``post_request`` run in the thread that parses the request, calls Django and
writes the answer), so it does not depend on how busy the machine is, nor on the
other threads of the process. Each process writes its totals to
``$EVALHUB_BENCH_CPU_DIR/<pid>.json`` four times a second; ``read_totals`` adds the
files up, and the benchmark subtracts the totals read at the start of its minute
from those at the end. What a process spends outside its requests (accepting
connections, the keep-alive poll, the garbage collector between requests) is the
difference between its whole CPU time (``/proc``) and these sums; the benchmark
reports both.

Used as ``gunicorn -c bench/cpu_hooks.py`` (``stack.py``): not a production setting."""

from __future__ import annotations

import json
import os
import runpy
import threading
import time
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
globals().update(
    {
        k: v
        for k, v in runpy.run_path(str(_ROOT / "gunicorn.conf.py")).items()
        if not k.startswith("_") and k != "os"
    }
)

_OUT = os.environ.get("EVALHUB_BENCH_CPU_DIR", "")
_BOARD = os.environ.get("EVALHUB_BENCH_BOARD", "/leaderboard/")
_SUBMIT = os.environ.get("EVALHUB_BENCH_SUBMIT", "/submit/")
_totals: dict[str, list[float]] = {}  # kind -> [requests, CPU seconds]
_lock = threading.Lock()
_local = threading.local()


def kind(method: str, path: str, cookie: str) -> str:
    """The benchmark's endpoints, as ``http_client.Recorder`` names them."""
    signed_in = "sessionid=" in cookie
    if method == "GET" and path == _BOARD:
        return "leaderboard (signed in)" if signed_in else "leaderboard (anonymous)"
    if method == "POST" and path == _SUBMIT:
        return "submit (POST, parse)"
    if method == "GET" and path.startswith("/runs/"):
        return "run page"
    return f"other {method}"


def pre_request(worker, req) -> None:  # noqa: ANN001
    _local.t0 = time.thread_time()


def post_request(worker, req, environ, resp) -> None:  # noqa: ANN001
    cpu = time.thread_time() - getattr(_local, "t0", time.thread_time())
    cookie = next((v for k, v in req.headers if k == "COOKIE"), "")
    name = kind(req.method, req.path, cookie)
    with _lock:
        total = _totals.setdefault(name, [0, 0.0])
        total[0] += 1
        total[1] += cpu


def _dump_forever() -> None:
    path = Path(_OUT) / f"{os.getpid()}.json"
    tmp = path.with_suffix(".tmp")
    while True:
        time.sleep(0.25)
        with _lock:
            data = json.dumps(_totals)
        tmp.write_text(data)
        tmp.replace(path)


def post_fork(server, worker) -> None:  # noqa: ANN001
    if _OUT:
        threading.Thread(target=_dump_forever, daemon=True).start()


def read_totals(folder: Path) -> dict[str, list[float]]:
    """Every process's totals added up: kind -> [requests, CPU seconds]."""
    out: dict[str, list[float]] = {}
    for path in folder.glob("*.json"):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        for name, (n, cpu) in data.items():
            total = out.setdefault(name, [0, 0.0])
            total[0] += n
            total[1] += cpu
    return out
