"""Benchmark: the leaderboard page in one process, cached fragment against the
previous behaviour (board data cached, page rendered and task artefacts loaded on
every request), on the BUCC demo task with ``--teams`` teams x 2 scored runs,
statistics and analyses refreshed (a full page: intervals, bands, analysis, plots).

Per viewer (anonymous, signed-in participant): mean/p50/p99 milliseconds and SQL
queries per request for (a) the previous behaviour, (b) the cached fragment (for
anonymous viewers, the cached whole page), and
(c) the first request after a new score (fragment and board recomputed). The ratio
(a)/(b) is the number to compare across machines.

Run: ``.venv/bin/python bench/leaderboard_page.py --database-url
postgres://postgres@127.0.0.1:5432/postgres`` (throwaway database and private
redis-server, see ``stack.py``). Results: ``bench/results/leaderboard-page-*.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stack import ROOT, Stack, command_line, machine_load  # noqa: E402

MEASURE = r"""
import json
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils.safestring import mark_safe
from evalhub.competitions.models import *
from evalhub.competitions.services.boards import analyses, board_pages, boardcache, fragments, leaderboard
from evalhub.competitions.services.data import taskdata
from evalhub.competitions.services.runs import lifecycle, stale, submit
from evalhub.rankings.services import statistics as stats

phase = Phase.objects.get(task__slug=TASK)
users = list(get_user_model().objects.filter(username__in=NAMES))
data = open(RUN, "rb").read()
test_sets = list(phase.test_sets.all())
contexts = [taskdata.load_inputs(ts) for ts in test_sets]
task_type, settings = contexts[0].task_type, contexts[0].settings
lines = data.decode().splitlines()
for i, user in enumerate(users):
    for k in range(2):
        # Distinct runs: the same pairs in a user-specific order.
        shift = (7 * i + k) % len(lines)
        body = ("\n".join(lines[shift:] + lines[:shift]) + "\n").encode()
        sub = submit.submit_run(phase=phase, user=user, filename="r.tsv", data=body,
                                method_name=f"method-{i}-{k}")
        # Through the run's life owner, as the scoring job (without its plots).
        token = f"bench-{sub.pk}"
        assert lifecycle.claim(sub.pk, token)
        read = stale.versions(test_sets)
        runs = task_type.parse_phase_run(body, "r.tsv", [c.inputs for c in contexts], settings)
        scored = [
            (ts, task_type.score(run, taskdata.load_gold(ts), ctx.inputs, settings), ())
            for ts, ctx, run in zip(test_sets, contexts, runs)
        ]
        assert lifecycle.finish(sub.pk, token, phase_id=phase.pk, read=read, scored=scored,
                                fields={"scorer_version": task_type.version, "warnings": []}) == "scored"
for ts in test_sets:
    stats.refresh(test_set_id=ts.pk)
    analyses.refresh(test_set_id=ts.pk)

url = f"/tasks/{TASK}/{phase.slug}/leaderboard/"
real_fragment, real_page = fragments.fragment, board_pages.anonymous_leaderboard
previous = lambda *, test_sets, vary_on, render: mark_safe(render())
uncached_page = lambda *, phase, test_sets, path, render: render()

from bench.page_timing import bump as bump_boards, measure as measure_page
measure = lambda client, n, before=None: measure_page(client, url, n, before)
bump = lambda: bump_boards(test_sets)

out = {"rows": len(leaderboard.board(test_set=test_sets[0]).rows)}
for who in ("anonymous", "participant"):
    client = Client(HTTP_HOST="127.0.0.1")
    if who == "participant":
        client.force_login(users[0])
    client.get(url)
    fragments.fragment, board_pages.anonymous_leaderboard = previous, uncached_page
    try:
        a = measure(client, N)
    finally:
        fragments.fragment, board_pages.anonymous_leaderboard = real_fragment, real_page
    b = measure(client, N)
    c = measure(client, max(5, N // 10), before=bump)
    out[who] = {"previous": a, "cached": b, "after_new_score": c,
                "speedup_mean": round(a["mean_ms"] / b["mean_ms"], 1)}
    client.get(url)
open(OUT, "w").write(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default="")
    parser.add_argument("--teams", type=int, default=50)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args()
    with Stack(database_url=args.database_url) as stack:
        names = [f"team{i}" for i in range(args.teams)]
        stack.add_participants(names)
        out_file = stack.tmp / "page.json"
        before = machine_load()
        code = (
            f"TASK = {'demo-bilingual-term-alignment'!r}\nNAMES = {names!r}\n"
            f"RUN = {str(stack.tmp / 'run.tsv')!r}\nOUT = {str(out_file)!r}\n"
            f"N = {args.requests}\n" + MEASURE
        )
        stack.shell(code, timeout=3600)
        measured = json.loads(out_file.read_text())
        result = {
            "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "command": command_line("leaderboard_page.py"),
            "machine": {**before, "python": platform.python_version()},
            "database": stack.database,
            "teams": args.teams,
            **measured,
            "machine_after": machine_load(),
        }
        print(json.dumps(result, indent=2))
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        name = f"leaderboard-page-{stack.database}-{time.strftime('%Y%m%d-%H%M', time.gmtime())}.json"
        (out / name).write_text(json.dumps(result, indent=2) + "\n")
        print(f"saved {out / name}")


if __name__ == "__main__":
    main()
