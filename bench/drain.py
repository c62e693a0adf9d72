"""Drain benchmark: queue N BUCC-size runs (the demo's 19.7 kB run, default 1,000)
while no worker runs, then start two Celery workers (``-c 1`` each, different
``-n`` names, queues ``scoring,default``) and wait until every run is in a final
state. Reports runs/min, total time, runs lost (not final), runs scored twice
(more than one Evaluation per run and test set, or more than one claim), failures,
how many statistics/analyses refreshes the workers ran (coalesced, see
``evalhub/competitions/services/boards/refreshes.py``) and how long after the last run the
statistics covered every run (the final state is exact).

Run: ``.venv/bin/python bench/drain.py --database-url
postgres://postgres@127.0.0.1:5432/postgres`` (creates and drops a throwaway
database ``evalhub_bench_<pid>``); everything else (redis-server, workers) is
private, on 127.0.0.1, in a temporary folder, and stopped at the end. Results:
``bench/results/drain-*.json``.

``--nodes K`` (default 1: the above) starts ``--workers`` workers on each of K
nodes: each node has its own data folder (``EVALHUB_VAR_DIR``, hence its own
``private/``) and they share only PostgreSQL, Redis and an S3 server (moto's
standalone server from PyPI, ``nodes.py``); with K >= 2 the runs are queued with the
same S3 storage settings. The result adds the runs each node scored (from the worker
name the claim leaves on the run's row), the objects in the bucket, and the files in
each node's folder (expected: none; the script fails otherwise). E.g.
``bench/drain.py --database-url ... --nodes 2 --workers 2``.

``--pin-nodes`` makes each node one core of this machine: node n's workers (and
their pool processes) run on core n only, so ``--nodes 1`` and ``--nodes 2`` compare
one core's node with two (the shared services float on every core); with it a
single node also takes the multi-node path (its own folder, the S3 server).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from nodes import bucket_objects, node_env, s3_server, stored_files  # noqa: E402
from stack import ROOT, TASK, Stack, command_line, machine_load, wait  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default="")
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--teams", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2, help="per node")
    parser.add_argument("--nodes", type=int, default=1)
    parser.add_argument(
        "--pin-nodes",
        action="store_true",
        help="node n's workers run on core n only (a node of one core), and a "
        "single node also uses its own folder and the S3 server",
    )
    parser.add_argument("--timeout", type=float, default=45 * 60)
    parser.add_argument("--refresh-delay", type=int, default=5)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args()

    env = {"EVALHUB_REFRESH_DELAY": str(args.refresh_delay)}
    with contextlib.ExitStack() as services:
        if args.nodes > 1 or args.pin_nodes:
            env.update(services.enter_context(s3_server()))
        stack = services.enter_context(
            Stack(database_url=args.database_url, extra_env=env)
        )
        run(stack, args)


def run(stack: Stack, args: argparse.Namespace) -> None:
    """Queue the runs, start the workers, wait, report."""
    names = [f"drain{i}" for i in range(args.teams)]
    stack.add_participants(names)
    demo_runs = stack.count("TRUE")
    # Queue every run before any worker starts (the messages wait in Redis).
    t_queue = time.monotonic()
    stack.shell(
        "from django.contrib.auth import get_user_model\n"
        "from evalhub.competitions.models import Phase\n"
        "from evalhub.competitions.services.runs import submit\n"
        f"phase = Phase.objects.get(task__slug={TASK!r})\n"
        f"users = list(get_user_model().objects.filter(username__in={names!r}))\n"
        f"data = open({str(stack.tmp / 'run.tsv')!r}, 'rb').read()\n"
        f"for i in range({args.runs}):\n"
        "    submit.submit_run(phase=phase, user=users[i % len(users)],\n"
        "        filename='run.tsv', data=data, method_name=f'drain-{i}')\n",
        timeout=args.timeout,
    )
    queue_seconds = time.monotonic() - t_queue
    total = demo_runs + args.runs
    queued = stack.count("status = 'queued'")
    # One node: the stack's folder and workers drain-<i> as before; more: a
    # folder per node and workers node<n>-drain-<i>.
    multi = args.nodes > 1 or args.pin_nodes
    cores = sorted(os.sched_getaffinity(0))
    folders = [stack.tmp / f"node-{n}" for n in range(args.nodes)] if multi else []
    workers = [
        (f"node{n}-drain-{i}" if multi else f"drain-{i}",
         stack.tmp / (f"worker-{n}-{i}.log" if multi else f"worker-{i}.log"),
         node_env(stack.env, folders[n]) if multi else None,
         {cores[n % len(cores)]} if args.pin_nodes else None)
        for n in range(args.nodes) for i in range(args.workers)
    ]  # fmt: skip
    logs = [log for _, log, _, _ in workers]
    before = machine_load()
    t0 = time.monotonic()
    for name, log, node, cpus in workers:
        stack.worker(name, log=log, env=node, cpus=cpus)
    first_final = [None]

    def done() -> bool:
        n = stack.count("status IN ('scored', 'failed')")
        if n and first_final[0] is None:
            first_final[0] = time.monotonic() - t0
        return n >= total

    wait(done, f"{total} runs in a final state", args.timeout)
    drained = time.monotonic() - t0
    # The statistics are exact once they cover every scored run.
    scored_ids = {r[0] for r in stack.sql(
        "SELECT id FROM competitions_submission WHERE status = 'scored'")}  # fmt: skip

    def exact() -> bool:
        rows = stack.sql("SELECT data FROM rankings_testsetstatistics")
        return bool(rows) and all(
            {int(k) for k in (data or {}).get("intervals", {})} >= scored_ids
            for (data,) in rows
        )

    wait(exact, "statistics covering every run", 600)
    exact_after = time.monotonic() - t0 - drained
    time.sleep(2 * args.refresh_delay + 2)  # let the last analyses refresh end
    twice = stack.sql(
        "SELECT count(*) FROM (SELECT submission_id, test_set_id "
        "FROM competitions_evaluation GROUP BY 1, 2 HAVING count(*) > 1) d"
    )[0][0]
    evaluations = stack.sql("SELECT count(*) FROM competitions_evaluation")[0][0]
    test_sets = stack.sql("SELECT count(*) FROM competitions_testset")[0][0]
    log_text = "".join(p.read_text(errors="replace") for p in logs)
    result = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": command_line("drain.py"),
        "machine": {**before, "python": platform.python_version()},
        "database": stack.database,
        "setup": {
            "nodes": args.nodes,
            "storage": "s3 (moto_server)" if multi else "local",
            "workers": f"{args.workers} x celery -c 1 (scoring,default)"
            + (" per node" if multi else ""),
            "workers_pinned": "node n on core n" if args.pin_nodes else "no",
            "runs_queued": args.runs,
            "demo_runs": demo_runs,
            "teams": args.teams,
            "run_bytes": (stack.tmp / "run.tsv").stat().st_size,
            "refresh_delay_s": args.refresh_delay,
            "seconds_to_queue": round(queue_seconds, 1),
        },
        "queued_before_workers": queued,
        "final": stack.count("status IN ('scored', 'failed')"),
        "failed": stack.count("status = 'failed'"),
        "lost": total - stack.count("status IN ('scored', 'failed')"),
        "claimed_more_than_once": stack.count("attempts > 1"),
        "scored_twice": twice,
        "evaluations": evaluations,
        "evaluations_expected": stack.count("status = 'scored'") * test_sets,
        "seconds_total": round(drained, 1),
        "seconds_to_first_final": first_final[0] and round(first_final[0], 1),
        "runs_per_minute": round(total / drained * 60, 1),
        "statistics_exact_seconds_after_last_run": round(exact_after, 1),
        "refreshes_run": {
            kind: len(re.findall(rf"{kind}\[[^\]]+\] succeeded", log_text))
            for kind in ("refresh_statistics", "refresh_analyses")
        },
        "machine_after": machine_load(),
    }
    if multi:
        result["per_node"] = per_node(stack, args.nodes, folders)
        result["objects_in_bucket"] = bucket_objects(stack.env)
    print(json.dumps(result, indent=2))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    name = f"drain-{stack.database}-{time.strftime('%Y%m%d-%H%M', time.gmtime())}.json"
    (out / name).write_text(json.dumps(result, indent=2) + "\n")
    print(f"saved {out / name}")
    if multi and any(node["files_in_folder"] for node in result["per_node"]):
        raise SystemExit("files landed in a node's folder (see per_node)")


def per_node(stack: Stack, nodes: int, folders: list[Path]) -> list[dict[str, object]]:
    """Runs each node's workers scored or failed (the claim's token, left on the
    run's row, starts with the worker's ``-n`` name) and the files in its folder."""
    return [
        {
            "node": n,
            "runs_final": stack.count(
                f"status IN ('scored', 'failed') AND worker LIKE 'node{n}-drain-%'"
            ),
            "files_in_folder": stored_files(folders[n]),
        }
        for n in range(nodes)
    ]


if __name__ == "__main__":
    main()
