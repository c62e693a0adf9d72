"""``evalhub`` command line.

- ``evalhub score ...``, ``evalhub compare ...`` and ``evalhub probe ...``: the
  offline tools of ``tasks.cli`` (no Django or Celery is imported).
- ``evalhub submit --url URL --token T --task SLUG --phase SLUG --method NAME FILE
  [--wait]``: upload a run through the REST API (token from ``EVALHUB_TOKEN`` when
  ``--token`` is not given), with a progress bar on stderr.
- ``evalhub status --url URL --token T RUN [--wait]``: a run's status and scores.
- ``evalhub data pull --url URL --token T --task SLUG [--phase SLUG] DIR``: the task's
  files you may have (inputs; gold once released) into ``DIR/<phase>/<test set>/``.
  Where the organisers set data terms, nothing is downloaded before you accepted
  their current version on the task's terms page (the refusal prints its link).
- Organisers (``cli_organiser.py``): ``evalhub task push BUNDLE`` creates a task
  from a bundle; ``evalhub test-data push --task --phase --test-set ROLE=FILE ...``
  (formerly ``gold push``, a deprecated alias) uploads a test set's files, shows the preview and asks (or ``--yes``) before they
  are stored; ``evalhub runs pull --task SLUG DIR`` downloads the runs and their
  scores into a folder.

Exit status of ``submit``/``status``: 0 queued (without ``--wait``) or scored, 1 failed,
2 rejected (the errors are printed with file and line), 3 refused, unauthorised or
unreachable. The organisers' commands: 0 done, 1 not stored (the preview declined),
2 rejected (file and line), 3 refused, unauthorised or unreachable.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from evalhub import cli_organiser
from evalhub.cli_shared import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_REJECTED,
    ProgressBar,
    add_connection,
    detail,
    print_problems,
    safe_name,
)

CLIENT_COMMANDS = ("submit", "status", "data", *cli_organiser.COMMANDS)


def build_parser(
    *, offline: bool = True, argv: Sequence[str] = ()
) -> argparse.ArgumentParser:
    """The whole command line; ``offline=False`` leaves out ``score``/``compare``/
    ``probe``. Only a task type named in ``argv`` is imported."""
    if offline:
        from tasks import cli as task_cli

        parser = task_cli.build_parser(list(argv))
        commands = next(
            a for a in parser._actions if isinstance(a, argparse._SubParsersAction)
        )
        parser.formatter_class = task_cli.RawDescriptionHelpFormatter
    else:
        parser = argparse.ArgumentParser(prog="evalhub")
        parser.formatter_class = argparse.RawDescriptionHelpFormatter
        commands = parser.add_subparsers(dest="command", required=True)
    parser.description = __doc__
    submit = commands.add_parser(
        "submit", help="submit a run to an evalhub server (REST API)"
    )
    add_connection(submit)
    submit.add_argument("--task", required=True, help="task slug")
    submit.add_argument("--phase", required=True, help="phase slug")
    submit.add_argument("--method", required=True, help="method name shown on boards")
    submit.add_argument("--description", default="", help="method description")
    submit.add_argument(
        "--track",
        default="",
        metavar="SLUG",
        help="the track the run competes in (required when the phase has tracks; "
        "the task's API page or `/api/tasks/SLUG` lists them)",
    )
    submit.add_argument(
        "--hide",
        action="store_true",
        help="hide the run from the public (runs are public by default; only your "
        "team and the organisers see a hidden run)",
    )
    submit.add_argument("file", type=Path, help="the run file")
    _add_wait(submit)
    status = commands.add_parser("status", help="show a run's status and scores")
    add_connection(status)
    status.add_argument("run", type=int, help="run number")
    _add_wait(status)
    data = commands.add_parser("data", help="download a task's data files")
    pull = data.add_subparsers(dest="action", required=True).add_parser(
        "pull",
        help="download the task's files you may have into a folder",
        description="Download every file of the task's test sets you may have "
        "(inputs; gold once released). Where the task has data terms, accept them "
        "on its terms page first: until then nothing is downloaded.",
    )
    add_connection(pull)
    pull.add_argument("--task", required=True, help="task slug")
    pull.add_argument("--phase", default="", help="only this phase's files")
    pull.add_argument("folder", type=Path, help="where the files go")
    cli_organiser.add_commands(commands)
    return parser


def _add_wait(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--wait", action="store_true", help="poll until the run is final"
    )
    parser.add_argument(
        "--interval", type=float, default=2.0, help="seconds between polls"
    )
    parser.add_argument(
        "--timeout", type=float, default=None, help="give up waiting after seconds"
    )
    parser.add_argument("--json", action="store_true", help="print the run as JSON")


def main(argv: Sequence[str] | None = None) -> int:
    from tasks.common.cli_files import quiet_broken_pipe

    argv = list(sys.argv[1:] if argv is None else argv)
    return quiet_broken_pipe(lambda: _main(argv))


def _main(argv: list[str]) -> int:
    command = next((a for a in argv if not a.startswith("-")), None)
    if command not in CLIENT_COMMANDS and not {"-h", "--help"} & set(argv[:1]):
        from tasks import cli as task_cli

        return task_cli.main(argv)
    parser = build_parser(offline=command not in CLIENT_COMMANDS, argv=argv)
    args = parser.parse_args(argv)
    from evalhub import client

    token = client.token_from_env(args.token)
    if not token:
        print("error: no API token (--token or EVALHUB_TOKEN)", file=sys.stderr)
        return EXIT_REFUSED
    try:
        api = client.Client(args.url, token)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    try:
        if args.command == "submit":
            return _submit(api, args)
        if args.command == "data":
            return _data_pull(api, args)
        if args.command in cli_organiser.COMMANDS:
            return cli_organiser.run(api, args)
        return _status(api, args, args.run)
    except client.ApiError as exc:
        print(f"error: {detail(exc.status, exc.payload)}", file=sys.stderr)
        return EXIT_REFUSED
    except OSError as exc:
        print(f"error: cannot reach {args.url}: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    except TimeoutError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_REFUSED


def _submit(api, args: argparse.Namespace) -> int:  # noqa: ANN001
    path: Path = args.file
    if not path.is_file():
        print(f"error: {path}: no such file", file=sys.stderr)
        return EXIT_REFUSED
    response = api.submit(
        task=args.task,
        phase=args.phase,
        method_name=args.method,
        method_description=args.description,
        hidden=args.hide,
        track=args.track,
        path=path,
        progress=ProgressBar(path.name),
    )
    if response.status == 422:
        print_problems(response.payload)
        if args.json:
            print(json.dumps(response.payload, indent=2, ensure_ascii=False))
        return EXIT_REJECTED
    if response.status == 403:
        print(f"refused: {response.payload.get('detail')}", file=sys.stderr)
        return EXIT_REFUSED
    run = response.payload
    print(
        f"run {run['id']} {run['status']}: {args.url.rstrip('/')}{run['url']}",
        file=sys.stderr,
    )
    return _status(api, args, int(run["id"]), first=run)


def _data_pull(api, args: argparse.Namespace) -> int:  # noqa: ANN001
    """Every file of the task (of ``--phase``) the token's user may have; the first
    refusal (data terms not accepted) stops before anything is written."""
    task = api.task(args.task)
    wanted = [
        (phase["slug"], test_set["slug"], f)
        for phase in task["phases"]
        if not args.phase or phase["slug"] == args.phase
        for test_set in phase["test_sets"]
        for f in test_set["files"]
    ]
    if not wanted:
        print("no file to download", file=sys.stderr)
        return EXIT_REFUSED
    folder: Path = args.folder
    for index, (phase, test_set, f) in enumerate(wanted, 1):
        target = folder / safe_name(phase) / safe_name(test_set) / safe_name(f["name"])
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            api.download_file(
                task=args.task,
                phase=phase,
                test_set=test_set,
                role=f["role"],
                dest=target,
                progress=ProgressBar(
                    f"[{index}/{len(wanted)}] {target.name}", verb="Downloading"
                ),
            )
        except Exception:
            _prune(folder)  # no empty folders left by a refusal
            raise
    print(f"{len(wanted)} file{'s' if len(wanted) != 1 else ''} in {folder}")
    return EXIT_OK


def _prune(folder: Path) -> None:
    for path in sorted(folder.rglob("*"), reverse=True):
        if path.is_dir() and not any(path.iterdir()):
            path.rmdir()


def _status(api, args: argparse.Namespace, run_id: int, first=None) -> int:  # noqa: ANN001
    run = first if first is not None else api.run(run_id)
    if args.wait and run.get("status") not in ("scored", "failed", "rejected"):
        seen = {run.get("status")}

        def report(current: dict[str, object]) -> None:
            if current.get("status") not in seen:
                seen.add(current.get("status"))
                print(f"run {run_id}: {current.get('status')}", file=sys.stderr)

        run = api.wait(
            run_id, interval=args.interval, timeout=args.timeout, on_status=report
        )
    if args.json:
        print(json.dumps(run, indent=2, ensure_ascii=False))
    else:
        _print_run(run)
    status = run.get("status")
    if status == "failed":
        return EXIT_FAILED
    if status == "rejected":
        return EXIT_REJECTED
    return EXIT_OK


def _print_run(run: dict[str, object]) -> None:
    print(f"run\t{run['id']}")
    print(f"status\t{run['status']}")
    for test_set, metrics in (run.get("scores") or {}).items():  # type: ignore[union-attr]
        for key, value in metrics.items():
            print(f"{test_set}\t{key}\t{value}")
    if run.get("failure_category"):
        print(f"failure\t{run['failure_category']}")
    for line in run.get("errors") or []:  # type: ignore[union-attr]
        print(f"error: {line}", file=sys.stderr)
    for line in run.get("warnings") or []:  # type: ignore[union-attr]
        print(f"warning: {line}", file=sys.stderr)


def run() -> None:
    """The ``evalhub`` console script: :func:`main` on the process's own arguments,
    then exit without the interpreter's final scan of every object (see
    :func:`tasks.common.gcpause.exit_settled`)."""
    from tasks.common.gcpause import exit_settled

    exit_settled(main())


if __name__ == "__main__":
    run()
