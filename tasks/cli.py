"""``evalhub`` command line: ``evalhub score <slug> ... [--json]`` (the offline scorer,
the same code the platform runs). Exit status: 0 scored, 2 bad input."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from tasks import registry
from tasks.base import FormatError, SettingsError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="evalhub", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    score = commands.add_parser("score", help="score a run offline, exactly as the platform does")
    kinds = score.add_subparsers(dest="slug", required=True, metavar="TASK_TYPE")
    for slug in registry.slugs():
        try:
            task_type = registry.get(slug)
        except ImportError:
            continue
        sub = kinds.add_parser(slug, help=task_type.name)
        task_type.add_cli_arguments(sub)
        sub.add_argument("--json", action="store_true", help="print one JSON object")
    try:
        from tasks.mt_lexicon_probe.cli import add_probe_parser
    except ImportError:
        return parser
    add_probe_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "score":
        return _score(args)
    if args.command == "probe":
        from tasks.mt_lexicon_probe.cli import run_probe

        return run_probe(args)
    parser.error(f"unknown command {args.command}")
    return 2


def _score(args: argparse.Namespace) -> int:
    task_type = registry.get(args.slug)
    try:
        report = task_type.cli_score(args)
    except (FormatError, SettingsError) as exc:
        if args.json:
            body = exc.to_json() if isinstance(exc, FormatError) else {"errors": [{"message": str(exc)}]}
            print(json.dumps(body, ensure_ascii=False, indent=2))
        else:
            problems = exc.problems if isinstance(exc, FormatError) else (str(exc),)
            for problem in problems:
                print(f"error: {problem}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report.payload, ensure_ascii=False, indent=2))
    else:
        for key, value in report.payload.items():
            if isinstance(value, (int, float, str)) or value is None:
                print(f"{key}\t{value}")
        for warning in report.warnings:
            print(f"warning: {warning}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
