"""Traffic benchmark at issue 7's size: gunicorn and two Celery workers on loopback,
**200 viewers** reading the BUCC demo leaderboard and **50 participants** submitting
runs, for 60 s; throughput, p50/p90/p99/max latency and errors per endpoint.

- Viewers: each its own keep-alive connection; GET the leaderboard page, then wait a
  think time drawn uniformly from [0.5, 1.5] x ``--view-think`` (default 1 s: a
  browser refreshing every second or so). ``--logged-in-viewers`` of them are
  signed in (they take the per-user path: session, organiser check). With
  ``--view-think 0`` they read back to back (a saturation test: latency is then
  ~ viewers / throughput by Little's law, whatever the server).
- Participants: each signed in with its own team; POST a run (the demo's 19.7 kB
  BUCC run, parsed synchronously against the inputs), follow to the run page, then
  wait [0.5, 1.5] x ``--submit-think`` (default 10 s). Runs are scored by the two
  workers meanwhile, so every scored run invalidates the cached board. A run's own
  figures are drawn after its score by a job of their own, at a lower priority:
  the result gives the figures drawn in the minute, the backlog left at its end
  and the seconds the workers then take to draw it (the clients stopped).

The client is one asyncio process (stdlib only, HTTP/1.1 keep-alive), on the same
two cores as the server. To show it is not the bottleneck it reports its own CPU
use (share of one core) and its event-loop lag (a 10 ms ticker's delay: a saturated
client would delay every response it reads).

Run: ``.venv/bin/python bench/traffic.py --database-url
postgres://postgres@127.0.0.1:5432/postgres`` (a throwaway database
``evalhub_bench_<pid>`` is created and dropped). Results:
``bench/results/traffic-*.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import random
import resource
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import stack as bench_stack  # noqa: E402
from cpu_hooks import read_totals  # noqa: E402
from http_client import Conn, Recorder, timed  # noqa: E402
from stack import PHASE, ROOT, TASK, Stack, command_line, wait  # noqa: E402

BOARD = f"/tasks/{TASK}/{PHASE}/leaderboard/"
SUBMIT = f"/tasks/{TASK}/{PHASE}/submit/"


class Phase:
    """Clients sign in and make a first request, then report ready; measuring
    starts when all are ready (sign-ins hash passwords: seconds of CPU that must not
    fall into the measured minute) and ``done`` ends every loop."""

    def __init__(self, clients: int):
        self.waiting = clients
        self.all_ready = asyncio.Event()
        self.done = asyncio.Event()

    def ready(self) -> None:
        self.waiting -= 1
        if self.waiting <= 0:
            self.all_ready.set()


async def viewer(port, rec, phase, think, user) -> None:  # noqa: ANN001
    conn = Conn(port)
    try:
        if user:
            await conn.login(user)
        await conn.request("GET", BOARD)
    finally:
        phase.ready()
    endpoint = "leaderboard (signed in)" if user else "leaderboard (anonymous)"
    await phase.all_ready.wait()
    await asyncio.sleep(random.uniform(0, max(think, 0.05)))  # no lock-step start
    while not phase.done.is_set():
        await timed(rec, endpoint, conn.request("GET", BOARD), 200)
        if think:
            await asyncio.sleep(think * random.uniform(0.5, 1.5))


async def submitter(port, rec, phase, think, user, run) -> None:  # noqa: ANN001
    conn = Conn(port)
    try:
        await conn.login(user)
        await conn.request("GET", SUBMIT)
    finally:
        phase.ready()
    await phase.all_ready.wait()
    await asyncio.sleep(random.uniform(0, think))
    k = 0
    while not phase.done.is_set():
        boundary = uuid.uuid4().hex
        body = b""
        for name, filename, value in (
            ("csrfmiddlewaretoken", None, conn.cookies.get("csrftoken", "").encode()),
            ("method_name", None, f"{user}-{k}".encode()),
            ("run", "run.tsv", run),
        ):
            disposition = f'form-data; name="{name}"' + (
                f'; filename="{filename}"' if filename else ""
            )
            body += (
                f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n".encode()
            )
            body += value + b"\r\n"
        body += f"--{boundary}--\r\n".encode()
        headers = {
            "Content-Type": f"multipart/form-data; boundary={boundary}",
            "Referer": f"http://127.0.0.1:{port}{SUBMIT}",
        }
        got = await timed(
            rec,
            "submit (POST, parse)",
            conn.request("POST", SUBMIT, body, headers),
            302,
        )
        k += 1
        if got and got[0] == 302:
            location = got[1].get("location", "")
            await timed(rec, "run page", conn.request("GET", location), 200)
        await asyncio.sleep(think * random.uniform(0.5, 1.5))


async def ticker(lags: list[float], phase: Phase) -> None:
    while not phase.done.is_set():
        t0 = time.perf_counter()
        await asyncio.sleep(0.01)
        lags.append(time.perf_counter() - t0 - 0.01)


async def run_load(args, port: int, users: list[str], run: bytes, snapshot) -> dict:  # noqa: ANN001
    rec = Recorder()
    phase = Phase(args.viewers + args.participants)
    signed_in = [f"viewer{i}" for i in range(args.logged_in_viewers)]
    tasks = [
        viewer(port, rec, phase, args.view_think, signed_in[i] if i < len(signed_in) else None)
        for i in range(args.viewers)
    ] + [
        submitter(port, rec, phase, args.submit_think, users[i], run)
        for i in range(args.participants)
    ]  # fmt: skip
    lags: list[float] = []

    async def measure() -> tuple[float, float, float]:
        t_start = time.monotonic()
        await phase.all_ready.wait()  # sign-ins and first requests are not counted
        warmup = time.monotonic() - t_start
        print(f"{len(tasks)} clients ready after {warmup:.0f} s; measuring for "
              f"{args.seconds:.0f} s", file=sys.stderr, flush=True)  # fmt: skip
        await asyncio.sleep(2)  # the staggered starts
        rec.recording = True
        lags.clear()
        cpu0, snap0, t0 = _cpu(), await asyncio.to_thread(snapshot), time.monotonic()
        await asyncio.sleep(args.seconds)
        rec.recording = False
        snap1 = await asyncio.to_thread(snapshot)
        phase.done.set()
        return _cpu() - cpu0, time.monotonic() - t0, warmup, snap0, snap1

    results = await asyncio.gather(
        measure(), ticker(lags, phase), *tasks, return_exceptions=True
    )
    cpu, seconds, warmup, snap0, snap1 = results[0]
    web_seconds = snap1["web_cpu"] - snap0["web_cpu"]
    per_kind = {
        name: (n - snap0["requests"].get(name, [0, 0])[0],
               c - snap0["requests"].get(name, [0, 0])[1])
        for name, (n, c) in snap1["requests"].items()
    }  # fmt: skip
    in_requests = sum(c for _, c in per_kind.values())
    answered = sum(n for n, _ in per_kind.values())
    failures = [r for r in results[2:] if isinstance(r, BaseException)]
    lags.sort()
    return {
        "seconds": round(seconds, 1),
        "seconds_to_sign_in_all_clients": round(warmup, 1),
        "endpoints": rec.summary(seconds),
        "client_tasks_failed": [repr(f) for f in failures[:5]],
        "server": {
            # All gunicorn processes: CPU per answered request (any endpoint).
            "web_cpu_share_of_one_core": round(web_seconds / seconds, 2),
            "web_cpu_ms_per_request": round(
                web_seconds
                * 1000
                / max(1, sum(len(v) for v in rec.latencies.values())),
                2,
            ),
            # Each kind of request: its worker thread's CPU (bench/cpu_hooks.py).
            "cpu_ms_per_request": {
                name: {"requests": n, "cpu_ms": round(c * 1000 / max(1, n), 2)}
                for name, (n, c) in sorted(per_kind.items())
                if n
            },
            # The web processes' CPU outside their requests' threads, per request.
            "web_cpu_outside_requests_ms_per_request": round(
                (web_seconds - in_requests) * 1000 / max(1, answered), 2
            ),
        },
        "runs_scored_in_the_minute": snap1["scored"] - snap0["scored"],
        "runs_scored_per_minute": round(
            (snap1["scored"] - snap0["scored"]) * 60 / seconds, 1
        ),
        # A run's own figures are drawn after its score, by a job of their own at a
        # lower priority: those drawn meanwhile (one per run and test set) and
        # those still to draw at the end.
        "run_figures_drawn_in_the_minute": snap1["drawn"] - snap0["drawn"],
        "run_figures_backlog_at_end": snap1["figures_backlog"],
        "_end": snap1["t"],  # popped by main(): when the minute ended
        "client": {
            "cpu_share_of_one_core": round(cpu / seconds, 2),
            "loop_lag_p50_ms": round(lags[len(lags) // 2] * 1000, 2) if lags else None,
            "loop_lag_p99_ms": round(lags[int(0.99 * (len(lags) - 1))] * 1000, 2)
            if lags
            else None,
        },
    }


EVALUATIONS = "competitions_evaluation"


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default="")
    parser.add_argument("--viewers", type=int, default=200)
    parser.add_argument("--logged-in-viewers", type=int, default=20)
    parser.add_argument("--participants", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--view-think", type=float, default=1.0)
    parser.add_argument("--submit-think", type=float, default=10.0)
    workers, threads = bench_stack.deployed_web_layout()
    parser.add_argument("--web-workers", type=int, default=workers)
    parser.add_argument("--web-threads", type=int, default=threads)
    parser.add_argument(
        "--worker-nice",
        type=int,
        default=None,
        help="EVALHUB_WORKER_NICE for the Celery workers (default: the setting's "
        "default, 10; 0 = scoring competes with the web on equal terms)",
    )
    parser.add_argument(
        "--board-runs",
        type=int,
        default=0,
        help="first seed this many teams with a scored run each on the demo board "
        "(bulk inserts: tests/competitions/big_board.py), e.g. 1000",
    )
    parser.add_argument(
        "--max-client-lag-ms",
        type=float,
        default=50,
        help="fail (exit 1) when the client's event-loop lag p99 exceeds this",
    )
    parser.add_argument(
        "--max-client-cpu",
        type=float,
        default=0.5,
        help="fail (exit 1) when the client used more than this share of one core",
    )
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args()

    with Stack(database_url=args.database_url) as stack:
        users = [f"team{i}" for i in range(args.participants)]
        viewers = [f"viewer{i}" for i in range(args.logged_in_viewers)]
        run = stack.add_participants(users + viewers)
        stack.seed_board(args.board_runs)
        cpu_dir = stack.tmp / "cpu"
        cpu_dir.mkdir()
        web = stack.gunicorn(
            workers=args.web_workers,
            threads=args.web_threads,
            config=Path(__file__).resolve().parent / "cpu_hooks.py",
            EVALHUB_BENCH_CPU_DIR=str(cpu_dir),
            EVALHUB_BENCH_BOARD=BOARD,
            EVALHUB_BENCH_SUBMIT=SUBMIT,
        )
        for i in range(2):
            stack.worker(f"traffic-{i}", nice=args.worker_nice)
        conn_ok = []

        def up() -> bool:
            import http.client

            try:
                c = http.client.HTTPConnection("127.0.0.1", stack.web_port, timeout=5)
                c.request("GET", BOARD)
                conn_ok.append(c.getresponse().status)
                return conn_ok[-1] == 200
            except OSError:
                return False

        wait(up, "gunicorn", 60)
        seeded = args.board_runs
        wait(
            lambda: stack.count("status IN ('scored', 'failed')") >= 3 + seeded,
            "demo runs",
            600,
        )
        before = bench_stack.machine_load()
        measured = asyncio.run(
            run_load(
                args,
                stack.web_port,
                users,
                run,
                lambda: {
                    "web_cpu": stack.cpu_seconds(web),
                    "requests": read_totals(cpu_dir),
                    "scored": stack.count("status = 'scored'"),
                    "drawn": stack.count("figures = 'drawn'", EVALUATIONS),
                    "figures_backlog": stack.count("figures <> 'drawn'", EVALUATIONS),
                    "t": time.monotonic(),
                },
            )
        )
        # From the minute's end (the clients stopping meanwhile): how long the
        # workers take to draw the rest.
        t_drain = measured.pop("_end")
        wait(
            lambda: stack.count("figures <> 'drawn'", EVALUATIONS) == 0,
            "the run figures' backlog drawn",
            900,
        )
        measured["seconds_to_draw_the_figure_backlog_after_the_load"] = round(
            time.monotonic() - t_drain, 1
        )
        result = {
            "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "command": command_line("traffic.py"),
            "machine": {**before, "python": platform.python_version()},
            "database": stack.database,
            "setup": {
                "gunicorn": f"{args.web_workers} processes x {args.web_threads} threads",
                "celery": "2 workers x 1 process (scoring,default)",
                "celery_nice": stack.worker_nice_levels(),
                "viewers": args.viewers,
                "logged_in_viewers": args.logged_in_viewers,
                "participants": args.participants,
                "view_think_s": args.view_think,
                "submit_think_s": args.submit_think,
                "run_bytes": len(run),
                "board_runs_seeded": args.board_runs,
            },
            **measured,
            "runs_submitted_scored_failed_at_end": [
                stack.count("TRUE") - 3 - seeded,
                stack.count("status = 'scored'") - 3 - seeded,
                stack.count("status = 'failed'"),
            ],
            "machine_after": bench_stack.machine_load(),
        }
        print(json.dumps(result, indent=2))
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        name = f"traffic-{stack.database}-{time.strftime('%Y%m%d-%H%M', time.gmtime())}.json"
        (out / name).write_text(json.dumps(result, indent=2) + "\n")
        print(f"saved {out / name}")
    lagged = _client_lagged(measured["client"], args)
    if lagged:
        raise SystemExit(
            f"THE CLIENT LAGGED ({lagged}): its latencies include its own delays; "
            "this run measures the client, not the server. Saved, but not valid."
        )


def _client_lagged(client: dict, args) -> str:  # type: ignore[type-arg]  # noqa: ANN001
    """Why the load generator itself was too slow to trust (empty: it was not)."""
    why = []
    if client["cpu_share_of_one_core"] > args.max_client_cpu:
        why.append(f"CPU {client['cpu_share_of_one_core']} of one core")
    lag = client["loop_lag_p99_ms"]
    if lag is None or lag > args.max_client_lag_ms:
        why.append(f"event-loop lag p99 {lag} ms")
    return ", ".join(why)


if __name__ == "__main__":
    main()
