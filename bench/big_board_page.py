"""Benchmark (issue 31, big boards): the leaderboard page of a board of
``--board-runs`` teams in one process, through Django's test client: per viewer
(anonymous; a signed-in participant whose team ranks ~70 % down the board; the
same participant with ``?rows=all``) the page served from the cache (mean, p50,
p99 ms, SQL queries, bytes) and the first request after a new score (the
fragment rendered, the worker's render-ahead not running here).

Teams are seeded in bulk (``tests/competitions/big_board.py``: scored runs
without per-item outcomes, so no intervals or bands). Run:
``.venv/bin/python bench/big_board_page.py --database-url
postgres://postgres@127.0.0.1:5432/postgres --board-runs 1000`` (throwaway
database and private redis-server, see ``stack.py``). Results:
``bench/results/big-board-page-*.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stack import PHASE, ROOT, TASK, Stack, command_line, machine_load, save  # noqa: E402

MEASURE = r"""
import json
from django.contrib.auth import get_user_model
from django.test import Client
from evalhub.competitions.models import Phase
from evalhub.competitions.services.boards import leaderboard
from tests.competitions.big_board import seed_board

phase = Phase.objects.get(task__slug=TASK, slug=PHASE)
teams = seed_board(phase=phase, teams=TEAMS)
user = get_user_model().objects.create_user("bench-participant")
teams[int(TEAMS * 0.7)].members.add(user)
test_sets = list(phase.test_sets.all())
url = f"/tasks/{TASK}/{PHASE}/leaderboard/"

from bench.page_timing import bump as bump_boards, measure
bump = lambda: bump_boards(test_sets)

out = {"rows": len(leaderboard.board(test_set=test_sets[0]).rows)}
for who, path in (("anonymous", url), ("participant", url),
                  ("participant, ?rows=all", url + "?rows=all")):
    client = Client(HTTP_HOST="127.0.0.1")
    if who.startswith("participant"):
        client.force_login(user)
    client.get(path)
    out[who] = {"cached": measure(client, path, N),
                "after_new_score": measure(client, path, max(5, N // 20), before=bump)}
open(OUT, "w").write(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default="")
    parser.add_argument("--board-runs", type=int, default=1000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args()
    with Stack(database_url=args.database_url) as stack:
        out_file = stack.tmp / "page.json"
        before = machine_load()
        code = (
            f"TASK = {TASK!r}\nPHASE = {PHASE!r}\nTEAMS = {args.board_runs}\n"
            f"OUT = {str(out_file)!r}\nN = {args.requests}\n" + MEASURE
        )
        stack.shell(code, timeout=3600)
        result = {
            "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "command": command_line("big_board_page.py"),
            "machine": {**before, "python": platform.python_version()},
            "database": stack.database,
            "board_runs": args.board_runs,
            **json.loads(out_file.read_text()),
            "machine_after": machine_load(),
        }
        save(
            result,
            out=args.out,
            name=f"big-board-page-{stack.database}-{args.board_runs}",
        )


if __name__ == "__main__":
    main()
