"""Benchmark: the CPU time one web request costs, in one process, per endpoint (issue
47): the leaderboard page served from the page cache to an anonymous visitor, the
same page to a signed-in participant, run pages (the participant's own runs: one
queued, as right after submitting, and one scored in the process first), the
leaderboard's exports (JSON, CSV, the board's ``leaderboard.json``, the API's
leaderboard), the organisers' pages listing every team (the console's participants
page and CSV, the fact-sheet overview), the overall ranking's page and CSV, and its
figure (SVG and the phone's SVG), which a request draws (kept after the first:
``..., drawn afresh`` empties every cache before each of its 3
requests, so each draws it).

Each request goes through the WSGI application gunicorn serves
(``evalhub.wsgi.application``, every middleware included) with an environ as
gunicorn builds it; ``time.process_time()`` around ``--requests`` requests after
``--warmup`` untimed ones gives CPU milliseconds per request, which do not depend on
how busy the machine is (its noise remains: repeat and compare runs of one
machine). ``--board-runs N`` seeds N more teams with a scored run each first (as
``traffic.py --board-runs``). ``--profile anonymous`` (or ``signed-in``, ``run``, ``scored-run``) adds
cProfile's top functions (by own CPU time) of that endpoint.

Run: ``.venv/bin/python bench/request_cpu.py`` (SQLite) or with ``--database-url
postgres://postgres@127.0.0.1:5432/postgres`` (throwaway database and private
redis-server, see ``stack.py``). Results: ``bench/results/request-cpu-*.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stack import ROOT, TASK, Stack, command_line, machine_load, save  # noqa: E402

MEASURE = r"""
import cProfile, io, json, pstats, time
from django.contrib.auth import get_user_model
from django.test import Client
from evalhub.competitions.models import Phase, Submission
from evalhub.competitions.services.runs import scoring, submit
from evalhub.wsgi import application

phase = Phase.objects.filter(task__slug=TASK).order_by("pk").first()
user = get_user_model().objects.get(username="cpu0")
run = submit.submit_run(phase=phase, user=user, filename="r.tsv", data=open(RUN, "rb").read(),
                        method_name="m")
scored = submit.submit_run(phase=phase, user=user, filename="s.tsv",
                           data=open(RUN, "rb").read(), method_name="s")
assert scoring.score_submission(submission_id=scored.pk) == "scored"
board = f"/tasks/{TASK}/{phase.slug}/leaderboard/"
ranking = f"/tasks/{TASK}/{phase.slug}/ranking."
client = Client(HTTP_HOST="127.0.0.1")
client.force_login(user)
session = client.cookies["sessionid"].value


def environ(path, cookie):
    env = {"REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": "",
           "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8000", "SERVER_PROTOCOL": "HTTP/1.1",
           "SCRIPT_NAME": "", "REMOTE_ADDR": "127.0.0.1", "REMOTE_PORT": "40000",
           "HTTP_HOST": "127.0.0.1:8000", "HTTP_USER_AGENT": "bench",
           "HTTP_ACCEPT": "text/html", "HTTP_ACCEPT_ENCODING": "gzip",
           "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(b""),
           "wsgi.errors": io.StringIO(), "wsgi.multithread": True,
           "wsgi.multiprocess": True, "wsgi.run_once": False, "wsgi.version": (1, 0)}
    if cookie:
        env["HTTP_COOKIE"] = cookie
    return env


def get(path, cookie):
    status = []
    body = application(environ(path, cookie), lambda s, h, e=None: status.append(s))
    try:
        size = sum(len(chunk) for chunk in body)
    finally:
        body.close()
    assert status[0].startswith("200"), (path, status)
    return size


def cpu(path, cookie, n, warmup):
    for _ in range(warmup):
        get(path, cookie)
    t0 = time.process_time()
    for _ in range(n):
        size = get(path, cookie)
    return {"requests": n, "cpu_ms": round((time.process_time() - t0) * 1000 / n, 3),
            "bytes": size}


def afresh(path, cookie, n):
    # The request that draws the figure: every cache emptied before each one
    # (untimed), so nothing is handed out kept.
    from django.core.cache import cache
    spent = 0.0
    for _ in range(n):
        cache.clear()
        t0 = time.process_time()
        size = get(path, cookie)
        spent += time.process_time() - t0
    return {"requests": n, "cpu_ms": round(spent * 1000 / n, 3), "bytes": size}


signed_in = f"sessionid={session}; tz=Europe/Paris"
organising = Client(HTTP_HOST="127.0.0.1")
organising.force_login(get_user_model().objects.get(username="organiser"))
organiser = f"sessionid={organising.cookies['sessionid'].value}; tz=Europe/Paris"
console = f"/tasks/{TASK}/dashboard/"
out = {"anonymous board": cpu(board, "", N, WARMUP),
       "signed-in board": cpu(board, signed_in, N // 2, WARMUP),
       "run page": cpu(f"/runs/{run.pk}/", signed_in, N // 4, WARMUP),
       "run page (scored)": cpu(f"/runs/{scored.pk}/", signed_in, N // 4, WARMUP),
       # the leaderboard's exports, which scripts poll (anonymous)
       "leaderboard JSON export": cpu(f"/exports/tasks/{TASK}/{phase.slug}/leaderboard.json", "", N // 20, 2),
       "leaderboard CSV export": cpu(f"/exports/tasks/{TASK}/{phase.slug}/leaderboard.csv", "", N // 20, 2),
       "leaderboard.json": cpu(board[:-1] + ".json", "", N // 20, 2),
       "API leaderboard": cpu(f"/api/tasks/{TASK}/phases/{phase.slug}/leaderboard", "", N // 20, 2),
       # the organisers' pages that list every team (once per team: its runs,
       # members, final runs and fact-sheet state)
       "participants page (organiser)": cpu(console + "participants/", organiser, N // 40, 2),
       "participants CSV (organiser)": cpu(console + "participants.csv", organiser, N // 40, 2),
       "fact-sheet overview (organiser)": cpu(f"/tasks/{TASK}/{phase.slug}/factsheets/", organiser, N // 40, 2),
       "overall ranking page": cpu(ranking[:-1] + "/", signed_in, N // 40, 2),
       "overall ranking CSV": cpu(ranking + "csv", signed_in, N // 40, 2),
       # drawn per request (it depends on who asks): a figure, not a page
       "overall ranking SVG": cpu(ranking + "svg", signed_in, N // 40, 2),
       "overall ranking phone SVG": cpu(ranking + "narrow.svg", signed_in, N // 40, 2),
       "overall ranking SVG, drawn afresh": afresh(ranking + "svg", signed_in, 3),
       "overall ranking phone SVG, drawn afresh": afresh(ranking + "narrow.svg", signed_in, 3)}
if PROFILE:
    prof = cProfile.Profile(time.process_time)
    prof.enable()
    path, cookie = {"anonymous": (board, ""), "signed-in": (board, signed_in),
                    "run": (f"/runs/{run.pk}/", signed_in),
                    "scored-run": (f"/runs/{scored.pk}/", signed_in)}[PROFILE]
    for _ in range(N // 2):
        get(path, cookie)
    prof.disable()
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(30)
    pstats.Stats(prof, stream=text).sort_stats("cumulative").print_stats(60)
    pstats.Stats(prof, stream=text).sort_stats("cumulative").print_stats("evalhub|cache|auth|csrf|url", 60)
    out["profile"] = text.getvalue()
open(OUT, "w").write(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default="")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument(
        "--profile", choices=("anonymous", "signed-in", "run", "scored-run")
    )
    parser.add_argument(
        "--board-runs",
        type=int,
        default=0,
        help="seed this many more teams with a scored run each (as traffic.py)",
    )
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args()
    with Stack(database_url=args.database_url) as stack:
        stack.add_participants(["cpu0"])
        stack.seed_board(args.board_runs)
        out_file = stack.tmp / "cpu.json"
        before = machine_load()
        code = (
            f"TASK = {TASK!r}\nRUN = {str(stack.tmp / 'run.tsv')!r}\n"
            f"OUT = {str(out_file)!r}\nN = {args.requests}\n"
            f"WARMUP = {args.warmup}\nPROFILE = {args.profile!r}\n" + MEASURE
        )
        stack.shell(code, timeout=3600)
        measured = json.loads(out_file.read_text())
        profile = measured.pop("profile", "")
        result = {
            "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "command": command_line("request_cpu.py"),
            "machine": {**before, "python": platform.python_version()},
            "database": stack.database,
            "board_runs_seeded": args.board_runs,
            **measured,
            "machine_after": machine_load(),
        }
        save(result, out=args.out, name=f"request-cpu-{stack.database}")
        if profile:
            print(profile)


if __name__ == "__main__":
    main()
