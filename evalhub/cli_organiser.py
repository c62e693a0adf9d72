"""The organisers' commands of ``evalhub`` (the organiser API, ``evalhub/api/
organiser.py``), with the token of one of the task's organisers:

- ``evalhub task push BUNDLE.zip``: create a task from a bundle;
- ``evalhub test-data push --task T --phase P --test-set S ROLE=FILE ...``: upload a
  test set's files (gold and public inputs, e.g. ``gold=gold.tsv``), print what the
  task type understood (counts before and after, warnings, the runs scored again) and
  ask before storing them (``--yes``: store without asking; declined: the draft is
  discarded); ``gold push`` is its former, deprecated name;
- ``evalhub runs pull --task T [--phase P] [--status S] [--run ID ...] DIR``: every
  run's file into ``DIR/<phase>/`` and ``DIR/runs.json`` (every run with every
  score); files already there with the same sha256 are kept; ``--zip`` saves the
  phase's archive (run files and ``manifest.csv``) instead;
- ``evalhub participants --task T [--filter F] [--search TEXT] [--csv FILE]
  [--json]``: the roster (teams, members and their verified addresses, terms
  accepted, runs, final runs, fact sheet, paper), as the console's Participants
  page filters it; ``--csv`` saves its CSV.
- ``evalhub ranking show --task T --phase P``: the phase's ranking settings (the
  metric that ranks, the board's columns, the overall ranking's method, the Ladder,
  the bootstrap); ``evalhub ranking set --task T --phase P KEY=VALUE ...`` changes
  those named (``metric=p_at_100``, ``columns=ap,f1``, ``overall=average_rank``,
  ``ladder=true``; an empty value is the task type's choice) and prints the
  settings in force; every problem is printed and nothing is stored.

Exit status: 0 done, 1 not stored (declined), 2 rejected (every problem with file and
line), 3 refused, unauthorised or unreachable.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from evalhub.cli_shared import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_REJECTED,
    ProgressBar,
    add_connection,
    print_problems,
    safe_name,
    setting_values,
)

#: ``gold`` is the deprecated alias of ``test-data`` (``docs/changelog.md``).
COMMANDS = ("task", "test-data", "gold", "runs", "participants", "ranking")


def add_commands(commands: argparse._SubParsersAction) -> None:
    """``task push``, ``test-data push`` and ``runs pull`` on ``evalhub``'s parser."""
    task = commands.add_parser("task", help="organisers: create a task from a bundle")
    push = task.add_subparsers(dest="action", required=True).add_parser(
        "push", help="create a task from a bundle (task.yaml and its data files)"
    )
    add_connection(push)
    push.add_argument("bundle", type=Path, help="the bundle (.zip)")
    push.add_argument("--json", action="store_true", help="print the task as JSON")

    test_data = commands.add_parser(
        "test-data",
        aliases=["gold"],
        help="organisers: upload a test set's files (gold: its deprecated name)",
    )
    push = test_data.add_subparsers(dest="action", required=True).add_parser(
        "push",
        help="upload gold or input files, see the preview, confirm",
        description="Upload a test set's files as a draft, print what the task "
        "type understood and the runs that will be scored again, then store them "
        "once you confirm. Nothing is used for scoring before that.",
    )
    add_connection(push)
    push.add_argument("--task", required=True, help="task slug")
    push.add_argument("--phase", required=True, help="phase slug")
    push.add_argument("--test-set", required=True, help="test set slug")
    push.add_argument(
        "files",
        nargs="+",
        metavar="ROLE=FILE",
        help="a file per role of the task type, e.g. gold=gold.tsv "
        "(`/api/tasks/SLUG` and the console's Test sets page name the roles)",
    )
    push.add_argument(
        "--yes", action="store_true", help="store without asking after the preview"
    )
    push.add_argument("--json", action="store_true", help="print the preview as JSON")

    runs = commands.add_parser("runs", help="organisers: download a task's runs")
    pull = runs.add_subparsers(dest="action", required=True).add_parser(
        "pull", help="download run files and every score into a folder"
    )
    add_connection(pull)
    pull.add_argument("--task", required=True, help="task slug")
    pull.add_argument("--phase", default="", help="only this phase's runs")
    pull.add_argument("--status", default="", help="only runs in this state")
    pull.add_argument("--track", default="", help="only this track's (with --phase)")
    pull.add_argument(
        "--run", type=int, action="append", default=[], help="only this run (again)"
    )
    pull.add_argument(
        "--zip",
        action="store_true",
        help="save the phase's archive (run files and manifest.csv; needs --phase)",
    )
    pull.add_argument("folder", type=Path, help="where the files go")

    roster = commands.add_parser(
        "participants", help="organisers: the teams and members of a task"
    )
    add_connection(roster)
    roster.add_argument("--task", required=True, help="task slug")
    roster.add_argument(
        "--filter",
        default="",
        help="only the teams a filter picks: no-run, no-final-run, no-fact-sheet, "
        "no-paper-link, terms-not-accepted, pending",
    )
    roster.add_argument("--search", default="", help="a team, member or address")
    roster.add_argument("--csv", type=Path, default=None, help="save as CSV here")
    roster.add_argument("--json", action="store_true", help="print it as JSON")

    ranking = commands.add_parser(
        "ranking", help="organisers: a phase's ranking settings"
    )
    actions = ranking.add_subparsers(dest="action", required=True)
    show = actions.add_parser("show", help="print a phase's ranking settings")
    change = actions.add_parser(
        "set",
        help="change a phase's ranking settings",
        description="Change the settings named (the others kept): the boards, "
        "statistics, Ladder decisions, figures and package of the phase are "
        "computed again by a worker.",
    )
    for sub in (show, change):
        add_connection(sub)
        sub.add_argument("--task", required=True, help="task slug")
        sub.add_argument("--phase", required=True, help="phase slug")
        sub.add_argument("--json", action="store_true", help="print them as JSON")
    change.add_argument(
        "settings",
        nargs="+",
        metavar="KEY=VALUE",
        help="e.g. metric=p_at_100 columns=p_at_100,ap,f1 overall=average_rank "
        "ladder=true (an empty value: the task type's choice)",
    )


def run(api, args: argparse.Namespace) -> int:  # noqa: ANN001
    """One organiser command; ApiError and OSError are the caller's to report."""
    if args.command == "gold":
        print(
            "note: `evalhub gold push` is deprecated; use `evalhub test-data push`",
            file=sys.stderr,
        )
    commands = {
        "task": _task_push,
        "runs": _runs_pull,
        "participants": _participants,
        "ranking": _ranking,
    }
    return commands.get(args.command, _test_data_push)(api, args)


def _ranking(api, args: argparse.Namespace) -> int:  # noqa: ANN001
    where = {"task": args.task, "phase": args.phase, "section": "ranking"}
    if args.action == "show":
        response = api.phase_settings(**where)
    else:
        values = setting_values(args.settings, text_keys=("metric", "overall"))
        if isinstance(values, str):
            print(f"error: {values}", file=sys.stderr)
            return EXIT_REFUSED
        response = api.change_phase_settings(**where, values=values)
    if response.status == 404:
        print(f"error: {response.payload.get('detail')}", file=sys.stderr)
        return EXIT_REFUSED
    if response.status == 422:
        print(f"rejected: {response.payload.get('detail')}", file=sys.stderr)
        return EXIT_REJECTED
    settings = response.payload
    if args.json:
        print(json.dumps(settings, indent=2, ensure_ascii=False))
    else:
        for key, value in settings.items():
            shown = ",".join(value) if isinstance(value, list) else value
            print(f"{key}: {json.dumps(shown) if shown in ('', None) else shown}")
    return EXIT_OK


def _task_push(api, args: argparse.Namespace) -> int:  # noqa: ANN001
    path: Path = args.bundle
    if not path.is_file():
        print(f"error: {path}: no such file", file=sys.stderr)
        return EXIT_REFUSED
    response = api.import_bundle(path, progress=ProgressBar(path.name))
    if response.status == 422:
        print_problems(response.payload)
        return EXIT_REJECTED
    if response.status == 403:
        print(f"refused: {response.payload.get('detail')}", file=sys.stderr)
        return EXIT_REFUSED
    task = response.payload
    url = args.url.rstrip("/")
    print(f"created task {task['slug']} ({task['state']}): {url}{task['url']}")
    if args.json:
        print(json.dumps(task, indent=2, ensure_ascii=False))
    return EXIT_OK


def _role_files(specs: list[str]) -> list[tuple[str, Path]] | str:
    """``ROLE=FILE`` arguments as (role, path), or what is wrong with them."""
    files = []
    for spec in specs:
        role, equals, name = spec.partition("=")
        if not equals or not role or not name:
            return f"{spec}: write ROLE=FILE, e.g. gold=gold.tsv"
        if not Path(name).is_file():
            return f"{name}: no such file"
        files.append((role, Path(name)))
    roles = [role for role, _ in files]
    if len(set(roles)) != len(roles):
        return "each role may be given once"
    return files


def _test_data_push(api, args: argparse.Namespace) -> int:  # noqa: ANN001
    files = _role_files(args.files)
    if isinstance(files, str):
        print(f"error: {files}", file=sys.stderr)
        return EXIT_REFUSED
    names = ", ".join(path.name for _, path in files)
    where = {"task": args.task, "phase": args.phase, "test_set": args.test_set}
    response = api.push_test_data(**where, files=files, progress=ProgressBar(names))
    if response.status == 422:
        print_problems(response.payload)
        return EXIT_REJECTED
    draft = response.payload
    if args.json:
        print(json.dumps(draft, indent=2, ensure_ascii=False))
    else:
        _print_preview(draft)
    rescored = len(draft["rescored"])  # type: ignore[arg-type]
    question = "Store these files" + (
        f" and score {rescored} run{'s' if rescored != 1 else ''} again"
        if rescored
        else ""
    )
    if not args.yes and not _ask(f"{question}? [y/N] "):
        api.discard_test_data(**where, token=draft["token"])
        print("Nothing stored (the upload was discarded).", file=sys.stderr)
        return EXIT_FAILED
    stored = api.confirm_test_data(**where, token=draft["token"])
    if stored.status == 409:
        print(f"refused: {stored.payload.get('detail')}", file=sys.stderr)
        return EXIT_REFUSED
    done = stored.payload
    print(
        f"stored {done['files']} file{'s' if done['files'] != 1 else ''}; "
        f"gold version {done['gold_version']}; {done['rescored']} run(s) are "
        "scored again"
    )
    return EXIT_OK


def _ask(question: str) -> bool:
    print(question, end="", file=sys.stderr, flush=True)
    try:
        answer = sys.stdin.readline()
    except (OSError, ValueError):
        answer = ""
    return answer.strip().lower() in ("y", "yes")


def _print_preview(draft: dict) -> None:
    print(f"test set\t{draft['task']} / {draft['phase']} / {draft['test_set']}")
    for f in draft["files"]:
        kind = "hidden gold" if f["private"] else "public input"
        replaces = f"replaces {f['replaces']}" if f["replaces"] else "new"
        print(
            f"file\t{f['label']} ({kind})\t{f['name']}\t{f['size']} bytes\t{replaces}"
        )
    for c in draft["counts"]:
        before = "-" if c["before"] is None else c["before"]
        after = "-" if c["after"] is None else c["after"]
        print(f"count\t{c['label']}\t{before} -> {after}")
    for example in draft["examples"]:
        print(f"example\t{example}")
    for warning in draft["warnings"]:
        print(f"warning: {warning}", file=sys.stderr)
    if not draft["has_gold"]:
        print("note: the test set still has no gold after these files", file=sys.stderr)
    for r in draft["rescored"]:
        hidden = " (hidden)" if r["hidden"] else ""
        print(f"rescored\t{r['id']}\t{r['team']}\t{r['method_name']}{hidden}")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _runs_pull(api, args: argparse.Namespace) -> int:  # noqa: ANN001
    folder: Path = args.folder
    if args.zip and not args.phase:
        print("error: --zip needs --phase", file=sys.stderr)
        return EXIT_REFUSED
    if args.zip:
        folder.mkdir(parents=True, exist_ok=True)
        name = f"{safe_name(args.task)}-{safe_name(args.phase)}-runs.zip"
        size = api.download_runs_zip(
            task=args.task,
            phase=args.phase,
            dest=folder / name,
            progress=ProgressBar(name, verb="Downloading"),
        )
        print(f"saved {folder / name} ({size:,} bytes)")
        return EXIT_OK
    listing = api.task_runs(
        task=args.task, phase=args.phase, status=args.status, track=args.track
    )
    runs = [r for r in listing["runs"] if not args.run or r["id"] in args.run]
    folder.mkdir(parents=True, exist_ok=True)
    fetched = kept = 0
    for index, r in enumerate(runs, 1):
        if not r["file_url"]:
            continue
        target = (
            folder
            / safe_name(r["phase"])
            / f"{r['id']:06d}-{safe_name(r['file_name'])}"
        )
        r["path"] = str(target.relative_to(folder))
        if target.is_file() and _sha256(target) == r["sha256"]:
            kept += 1
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        label = f"[{index}/{len(runs)}] {target.name}"
        api.download_run(
            task=args.task,
            run_id=int(r["id"]),
            dest=target,
            progress=ProgressBar(label, verb="Downloading"),
        )
        fetched += 1
    (folder / "runs.json").write_text(
        json.dumps({**listing, "runs": runs}, indent=2, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    print(
        f"{len(runs)} run{'s' if len(runs) != 1 else ''}: {fetched} downloaded, "
        f"{kept} already there; scores in {folder / 'runs.json'}"
    )
    return EXIT_OK


def _participants(api, args: argparse.Namespace) -> int:  # noqa: ANN001
    if args.csv is not None:
        size = api.download_roster(
            task=args.task, dest=args.csv, filter=args.filter, search=args.search
        )
        print(f"saved {args.csv} ({size:,} bytes)")
        return EXIT_OK
    roster = api.roster(task=args.task, filter=args.filter, search=args.search)
    if args.json:
        print(json.dumps(roster, indent=2, ensure_ascii=False))
        return EXIT_OK
    teams = roster["teams"]
    for team in teams:
        finals = ",".join(str(f["id"]) for f in team["final_runs"]) or "-"
        terms = "yes" if team["accepted_current_terms"] else "no"
        print(
            f"{team['team']}\t{team['status']}\truns {team['runs']}\t"
            f"final {finals}\tterms {terms}\tfact sheet {team['factsheet'] or '-'}"
            f"\tpaper {team['paper_url'] or team['paper'] or '-'}"
        )
        for m in team["members"]:
            where = ", ".join(x for x in (m["affiliation"], m["country"]) if x)
            print(f"  {m['username']}\t{' '.join(m['emails']) or '-'}\t{where}")
    print(f"{len(teams)} team{'s' if len(teams) != 1 else ''}", file=sys.stderr)
    return EXIT_OK
