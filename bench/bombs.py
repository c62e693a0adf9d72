"""Bombs benchmark (issue 15): hostile uploads must cost no web process time.

Starts, on 127.0.0.1 only and in a temporary folder (``stack.py``): a private
redis-server, gunicorn (2 sync workers, 30 s worker timeout, as ``manage.py up``
serves), one Celery worker, the sentence-alignment demo task and a participant with
an API token. Then, while ``--readers`` anonymous clients read public pages (task
list, task page, leaderboard) in a loop:

1. **zip**: two 289 kB zip bombs (3 members of 63 MB of ``[0]:[0]`` lines each) are
   posted at once through the API; each should be refused by the request itself.
2. **large**: two plain-text runs of ``--large-mb`` MB of beads are posted at once; the
   request stores them as ``validating`` and the worker's child process parses them
   under its CPU-time and memory limits; the time until each is rejected is measured
   on the run's status.

Printed (and saved as ``bench/results/bombs-<database>-<UTC time>.json``): per bomb,
the HTTP answer and the seconds until refused; for the public reads during each
phase, count, errors, p50/p99/max. Targets: p99 under 1 s, zero errors.

Run: ``.venv/bin/python bench/bombs.py`` (SQLite) or with ``--database-url
postgres://postgres@127.0.0.1:5432/postgres`` (a throwaway database).
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from load import percentile  # noqa: E402
from stack import ROOT, Stack, command_line, machine_load, wait  # noqa: E402

from evalhub.client import Client  # noqa: E402
from tests.zips import zip_bomb  # noqa: E402

TASK, PHASE = "demo-sentence-alignment", "evaluation"
PAGES = ["/", f"/tasks/{TASK}/", f"/tasks/{TASK}/{PHASE}/leaderboard/"]


def get(port: int, path: str) -> tuple[int, float]:
    started = time.monotonic()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        connection.close()
        return response.status, time.monotonic() - started
    except OSError:
        return 0, time.monotonic() - started


class Readers:
    """Anonymous clients reading public pages until stopped."""

    def __init__(self, port: int, clients: int):
        self.port, self.stop = port, threading.Event()
        self.results: list[tuple[int, float]] = []
        self.threads = [
            threading.Thread(target=self._read, args=(i,)) for i in range(clients)
        ]

    def _read(self, offset: int) -> None:
        i = offset
        while not self.stop.is_set():
            self.results.append(get(self.port, PAGES[i % len(PAGES)]))
            i += 1

    def __enter__(self) -> Readers:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join()

    def summary(self) -> dict[str, object]:
        seconds = [s for _, s in self.results]
        return {
            "reads": len(self.results),
            "errors": sum(1 for status, _ in self.results if status != 200),
            "p50_ms": round(percentile(seconds, 0.5) * 1000, 1),
            "p99_ms": round(percentile(seconds, 0.99) * 1000, 1),
            "max_ms": round(max(seconds) * 1000, 1),
        }


def bomb_phase(stack: Stack, client: Client, path: Path, readers: int) -> dict:
    """Post ``path`` twice at once; wait until both are refused (or queued)."""
    answers: list[dict[str, object]] = []

    def post() -> None:
        started = time.monotonic()
        try:
            response = client.submit(
                task=TASK, phase=PHASE, method_name="bomb", path=path
            )
            status, payload = response.status, response.payload
        except Exception as exc:  # noqa: BLE001 - a reset connection is a result
            status, payload = 0, {"detail": type(exc).__name__}
        answer = {"http": status, "answered_s": round(time.monotonic() - started, 2)}
        run = payload.get("id") or payload.get("run")
        if status == 201 and run:
            wait(
                lambda: client.run(run)["status"] in ("rejected", "failed", "scored"),
                f"run {run} to be decided",
                600,
            )
            final = client.run(run)
            answer["final"] = final["status"]
            answer["errors"] = final["errors"][:1]
        else:
            answer["errors"] = [
                e["message"] for e in payload.get("errors", [])[:1]
            ] or [payload.get("detail")]
        answer["refused_s"] = round(time.monotonic() - started, 2)
        answers.append(answer)

    with Readers(stack.web_port, readers) as reading:
        time.sleep(1.0)  # reads before the bombs, for comparison
        bombers = [threading.Thread(target=post, daemon=True) for _ in range(2)]
        for thread in bombers:
            thread.start()
        for thread in bombers:
            thread.join()
        time.sleep(1.0)
    return {"bombs": answers, "public_reads": reading.summary()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default="")
    parser.add_argument("--readers", type=int, default=2)
    parser.add_argument("--large-mb", type=int, default=20)
    parser.add_argument(
        "--worker-nice",
        type=int,
        default=0,
        help="the worker's nice level (0: validation competes with the pages at "
        "equal priority, the hard case; production default 10)",
    )
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args()

    with Stack(database_url=args.database_url) as stack:
        stack.manage("seed_demo", "--task-type", "sentence_alignment", "--no-runs")
        token_file = stack.tmp / "token"
        stack.shell(
            "from django.contrib.auth import get_user_model\n"
            "from evalhub.api.services import tokens\n"
            "from evalhub.competitions.models import *\n"
            f"task = SharedTask.objects.get(slug={TASK!r})\n"
            "Phase.objects.filter(task=task).update(daily_limit=100, total_limit=100)\n"
            "u = get_user_model().objects.create_user('bomber')\n"
            "team = Team.objects.create(name='bomber')\n"
            "team.members.add(u)\n"
            "Registration.objects.create(task=task, team=team, status='approved')\n"
            f"open({str(token_file)!r}, 'w').write(tokens.create(user=u, name='b').secret)\n"
        )
        stack._spawn(
            [sys.executable, "-m", "gunicorn", "evalhub.wsgi",
             "-b", f"127.0.0.1:{stack.web_port}", "-w", "2", "--timeout", "30",
             "--log-level", "warning"]
        )  # fmt: skip
        stack.worker("bombs-worker", nice=args.worker_nice)
        wait(lambda: get(stack.web_port, "/")[0] == 200, "gunicorn", 60)
        for page in PAGES * 4:  # every gunicorn worker has rendered each page
            get(stack.web_port, page)
        client = Client(
            f"http://127.0.0.1:{stack.web_port}", token_file.read_text(), timeout=300
        )
        zip_path = stack.tmp / "bomb.zip"
        zip_path.write_bytes(zip_bomb())
        large_path = stack.tmp / "large.txt"
        with large_path.open("wb") as out:
            out.write(b"# minutes\n")
            out.write(b"[0]:[0]\n" * (args.large_mb * 1024 * 1024 // 8))
        result = {
            "script": "bombs.py",
            "command": command_line("bombs.py"),
            "database": stack.database,
            "when": datetime.now(UTC).isoformat(timespec="seconds"),
            "machine": machine_load(),
            "zip_bomb_bytes": zip_path.stat().st_size,
            "large_run_bytes": large_path.stat().st_size,
            "worker_nice": args.worker_nice,
            "zip": bomb_phase(stack, client, zip_path, args.readers),
            "large": bomb_phase(stack, client, large_path, args.readers),
        }
    print(json.dumps(result, indent=2))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    (out / f"bombs-{result['database']}-{stamp}.json").write_text(
        json.dumps(result, indent=2) + "\n"
    )


if __name__ == "__main__":
    main()
