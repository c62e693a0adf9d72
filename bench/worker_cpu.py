"""Worker CPU per scored run, by stage, in one process (issue 47): what one scored
run of the BUCC demo costs the Celery workers in all, measured with
``time.process_time()``, so the figure does not depend on how busy the machine is.

``--runs`` runs (the demo's 19.7 kB run, one per team in turn) go through the
production path as a worker runs it: the submit service queues each run, and every
Celery job it or a later step sends runs in this process, as a worker would run it
(Celery's eager mode: the scoring job, then what it triggers after its commit, the
board rendered ahead (``boardcache.invalidate`` with the workers' renderer,
``evalhub.celery``), the refresh requests, the team's notification). Every
``--refresh-every`` scored runs, the refreshes due are dispatched (beat's job,
``refreshes.dispatch``) and run: the statistics and the analyses, each rendering its
board ahead again. At issue 47's pace (80 runs a minute) and the default
``REFRESH_DELAY`` of 5 s, a refresh covers about 8 runs (the default). The public
board is viewed (an anonymous GET through the WSGI application, not counted) before
the runs and after every refresh, as viewers do, so the workers render it ahead.

Each stage's CPU is its own (what nested stages spend is theirs): ``submit`` is the
web request's service (not the workers'; shown apart), the others are the workers'
and add up to ``worker_cpu_ms_per_scored_run``. ``--profile`` adds cProfile's top
functions of the measured runs. ``--board-runs N`` seeds N more teams with one
scored run each first (as ``traffic.py --board-runs``).

Run: ``.venv/bin/python bench/worker_cpu.py --database-url
postgres://postgres@127.0.0.1:5432/postgres`` (a throwaway database and a private
redis-server, see ``stack.py``). Results: ``bench/results/worker-cpu-*.json``.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import platform
import pstats
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stack import PHASE, ROOT, TASK, Stack, command_line, machine_load, save  # noqa: E402


class Stages:
    """Exclusive CPU time and calls per named stage: a stage called inside another
    is subtracted from it."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self._stack: list[list[float]] = []  # [start, nested time]

    def timed(self, name: str, func: Callable) -> Callable:  # type: ignore[type-arg]
        def wrapper(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            frame = [time.process_time(), 0.0]
            self._stack.append(frame)
            try:
                return func(*args, **kwargs)
            finally:
                self._stack.pop()
                spent = time.process_time() - frame[0]
                self.cpu[name] += spent - frame[1]
                self.calls[name] += 1
                if self._stack:
                    self._stack[-1][1] += spent

        wrapper.__wrapped__ = func  # type: ignore[attr-defined]
        return wrapper

    def patch(self, owner: object, attr: str, name: str) -> None:
        setattr(owner, attr, self.timed(name, getattr(owner, attr)))

    def reset(self) -> None:
        self.cpu.clear()
        self.calls.clear()


class Jobs:
    """Inclusive CPU time per job, a job run inside another (eager mode) counted
    as its own only."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = defaultdict(float)
        self._nested: list[float] = []

    def timed(self, name: str, func: Callable) -> Callable:  # type: ignore[type-arg]
        def wrapper(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            start = time.process_time()
            self._nested.append(0.0)
            try:
                return func(*args, **kwargs)
            finally:
                spent = time.process_time() - start
                self.cpu[name] += spent - self._nested.pop()
                if self._nested:
                    self._nested[-1] += spent

        return wrapper

    def reset(self) -> None:
        self.cpu.clear()


def measure(stack: Stack, args: argparse.Namespace) -> dict[str, object]:
    os.environ.update(stack.env)
    os.environ["DJANGO_SETTINGS_MODULE"] = "evalhub.settings"
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from datetime import timedelta

    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.utils import timezone

    from evalhub.celery import app
    from evalhub.competitions import jobs
    from evalhub.competitions.models import Phase, Submission
    from evalhub.competitions.services.boards import (
        analyses,
        board_pages,
        boardcache,
        refreshes,
    )
    from evalhub.competitions.services.runs import scoring, submit
    from evalhub.notifications.services import events
    from evalhub.rankings import jobs as ranking_jobs
    from evalhub.rankings.services import charts, statistics
    from tasks import registry

    app.conf.task_always_eager = True  # every job sent runs here, as a worker runs it
    stages = Stages()
    task_type = type(registry.get("bilingual_term_alignment"))
    # Stages (their own CPU; the job's rest is "scoring job, the rest").
    stages.patch(submit, "submit_run", "submit (web)")
    for job, name in (
        (jobs.score_submission, "scoring job, the rest"),
        (jobs.draw_run_figures, "figure job, the rest"),
        (jobs.refresh_analyses, "analyses refresh, the rest"),
        (ranking_jobs.refresh_statistics, "statistics refresh, the rest"),
    ):
        job.run = stages.timed(name, job.run)
    stages.patch(task_type, "parse_phase_run", "scorer: parse")
    stages.patch(task_type, "score", "scorer: score")
    stages.patch(task_type, "plots", "figure job: run figures")
    # Each run's two jobs, inclusive (what they trigger after their commit counted
    # in): the figure job runs here inside the scoring job's commit (eager), in
    # production after it, in a job of its own: its time is not the scoring job's.
    whole = Jobs()
    jobs.draw_run_figures.run = whole.timed("figure job", jobs.draw_run_figures.run)
    jobs.score_submission.run = whole.timed("scoring job", jobs.score_submission.run)
    stages.patch(task_type, "comparison_plots", "analyses: comparison figures")
    stages.patch(task_type, "analyse", "analyses: analysis and its figures")
    stages.patch(charts, "save_charts", "statistics: charts")
    stages.patch(statistics, "compute", "statistics: compute")
    stages.patch(events, "run_scored", "notification")
    stages.patch(boardcache, "bump", "board version bump")
    stages.patch(refreshes, "request", "refresh requests")
    stages.patch(refreshes, "dispatch", "refresh dispatch")
    render = stages.timed("boards rendered ahead", board_pages.warm_leaderboard)
    boardcache.render_ahead_with(render)
    del analyses, scoring  # imported so that their jobs are registered

    phase = Phase.objects.get(task__slug=TASK, slug=PHASE)
    users = list(
        get_user_model().objects.filter(username__in=args.names).order_by("username")
    )
    data = (stack.tmp / "run.tsv").read_bytes()
    client = Client(HTTP_HOST="127.0.0.1")
    board = f"/tasks/{TASK}/{phase.slug}/leaderboard/"

    def view() -> None:
        board_pages._noted.clear()  # noqa: SLF001 - note every view made here
        assert client.get(board).status_code == 200

    def refresh_all() -> None:
        # Beat's tick once the refreshes are due: dispatch sends (here: runs) them.
        later = timezone.now() + timedelta(hours=1)
        while refreshes.dispatch(now=later):
            later += timedelta(hours=1)

    def one_run(i: int) -> None:
        sub = submit.submit_run(
            phase=phase,
            user=users[i % len(users)],
            filename="run.tsv",
            data=data,
            method_name=f"cpu-{i}",
        )
        assert Submission.objects.get(pk=sub.pk).status == "scored", sub.pk

    # Untimed warm-up: the demo's runs, imports, caches, connections.
    for pk in Submission.objects.filter(status="queued").values_list("pk", flat=True):
        jobs.score_submission.delay(pk)
    view()
    for i in range(args.warmup):
        one_run(-1 - i)
    refresh_all()
    view()
    stages.reset()
    whole.reset()
    profile = cProfile.Profile(time.process_time) if args.profile else None
    t0, wall0 = time.process_time(), time.monotonic()
    if profile:
        profile.enable()
    for i in range(args.runs):
        one_run(i)
        if (i + 1) % args.refresh_every == 0 or i + 1 == args.runs:
            refresh_all()
            view()
    if profile:
        profile.disable()
    total_cpu, wall = time.process_time() - t0, time.monotonic() - wall0
    scored = args.runs
    worker = {k: v for k, v in stages.cpu.items() if k != "submit (web)"}
    per_run = {
        k: round(v * 1000 / scored, 2)
        for k, v in sorted(worker.items(), key=lambda kv: -kv[1])
    }
    out: dict[str, object] = {
        "runs_scored": scored,
        "refresh_every": args.refresh_every,
        "worker_cpu_ms_per_scored_run": round(sum(worker.values()) * 1000 / scored, 1),
        "by_stage_ms_per_scored_run": per_run,
        # A run's scoring job and its figure job apart (the figure job runs after
        # the score, at a lower priority), each with what it triggers.
        "by_job_ms_per_scored_run": {
            **{k: round(v * 1000 / scored, 1) for k, v in sorted(whole.cpu.items())},
            "both": round(sum(whole.cpu.values()) * 1000 / scored, 1),
        },
        "calls": dict(sorted(stages.calls.items())),
        "submit_web_cpu_ms_per_run": round(
            stages.cpu["submit (web)"] * 1000 / scored, 1
        ),
        "process_cpu_s": round(total_cpu, 2),
        "wall_s": round(wall, 2),
    }
    if profile:
        text = io.StringIO()
        stats = pstats.Stats(profile, stream=text)
        stats.sort_stats("tottime").print_stats(40)
        stats.sort_stats("cumulative").print_stats("evalhub|tasks/", 80)
        out["profile"] = text.getvalue()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default="")
    parser.add_argument("--runs", type=int, default=80)
    parser.add_argument("--warmup", type=int, default=4)
    parser.add_argument("--teams", type=int, default=50)
    parser.add_argument("--refresh-every", type=int, default=8)
    parser.add_argument("--board-runs", type=int, default=0)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args()
    args.names = [f"cpu{i:03d}" for i in range(args.teams)]
    with Stack(database_url=args.database_url, beat=False) as stack:
        stack.add_participants(args.names)
        stack.seed_board(args.board_runs)
        before = machine_load()
        measured = measure(stack, args)
        profile = measured.pop("profile", "")
        result = {
            "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "command": command_line("worker_cpu.py"),
            "machine": {**before, "python": platform.python_version()},
            "database": stack.database,
            "board_runs_seeded": args.board_runs,
            **measured,
            "machine_after": machine_load(),
        }
        save(result, out=args.out, name=f"worker-cpu-{stack.database}")
        if profile:
            print(profile)


if __name__ == "__main__":
    main()
