"""``evalhub`` offline commands (the same code the platform runs, no server needed):

- ``evalhub score TASK_TYPE ... [--json] [--ci] [--plots DIR]``: score one run.
- ``evalhub compare TASK_TYPE ... --run A B ... [--format text|csv|json|latex]``:
  score several runs against one gold and print the overview table of the
  platform's significance page (every metric, bootstrap intervals, rank bands,
  pairwise p-values, signature line).
- ``evalhub probe ...``: build MT lexicon probes (``mt_lexicon_probe``).

Only the chosen task type is imported (no Django, Celery or other task types);
matplotlib only with ``--plots``. Exit status: 0 scored, 2 bad input (every error
names the option and the path: ``--run r/001.align, line 3: ...``), 141 when the
reader of the output goes away.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from tasks import registry

OFFLINE_COMMANDS = ("score", "compare", "probe")


def _columns() -> int:
    """The terminal's width, as ``shutil.get_terminal_size`` finds it ($COLUMNS, else
    the terminal of standard output, else 80), without importing shutil (argparse's
    formatters do, with bz2 and lzma: 2 ms of every command's start)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class HelpFormatter(argparse.HelpFormatter):
    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        width = _columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width)


class RawDescriptionHelpFormatter(HelpFormatter, argparse.RawDescriptionHelpFormatter):
    pass


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser with the formatters above (its subcommands' too)."""

    def __init__(self, *args, formatter_class=HelpFormatter, **kwargs) -> None:  # noqa: ANN001, ANN002, ANN003
        super().__init__(*args, formatter_class=formatter_class, **kwargs)


class _Version(argparse.Action):
    """``--version``, looked up only when asked for (importlib.metadata is slow)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version")

    def __call__(self, parser, namespace, values, option_string=None):  # noqa: ANN001
        from importlib import metadata

        try:
            version = metadata.version("evalhub")
        except metadata.PackageNotFoundError:
            version = "unknown"
        print(f"evalhub {version}")
        parser.exit()


def _wanted(argv: Sequence[str] | None, command: str) -> str | None:
    """The task type named after ``command`` in ``argv`` (only it is imported);
    None for every task type (``argv`` None: all of them, for tests)."""
    if argv is None:
        return None
    argv = list(argv)
    if command not in argv:
        return ""
    rest = [a for a in argv[argv.index(command) + 1 :] if not a.startswith("-")]
    return rest[0] if rest else ""


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The offline command line. With ``argv``, only the task type it names gets
    its arguments (the others are listed by slug), so nothing else is imported."""
    parser = ArgumentParser(
        prog="evalhub",
        description=__doc__,
        formatter_class=RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", required=True)
    score = commands.add_parser(
        "score", help="score a run offline, exactly as the platform does"
    )
    _add_task_types(score, _wanted(argv, "score"), _add_score_options)
    compare = commands.add_parser(
        "compare",
        help="score several runs against one gold: the overview table of the "
        "platform's significance page",
    )
    _add_task_types(compare, _wanted(argv, "compare"), _add_compare_options)
    if argv is None or "probe" in argv:
        from tasks.mt_lexicon_probe.cli import add_probe_parser

        add_probe_parser(commands)
    else:
        commands.add_parser("probe", help="build MT lexicon probes (see probe --help)")
    return parser


def _add_task_types(parser: argparse.ArgumentParser, wanted: str | None, add) -> None:  # noqa: ANN001
    kinds = parser.add_subparsers(dest="slug", required=True, metavar="TASK_TYPE")
    for slug in registry.slugs():
        if wanted is not None and slug != wanted:
            kinds.add_parser(slug, help=f"(see {parser.prog} {slug} --help)")
            continue
        light = registry.cli_arguments(slug)
        if light is not None:
            # The task type's own light module: nothing heavy imported yet.
            sub = kinds.add_parser(slug, help=slug, description=slug)
            light(sub)
            add(sub)
            continue
        try:
            task_type = registry.get(slug)
        except ImportError:
            continue
        sub = kinds.add_parser(slug, help=task_type.name, description=task_type.name)
        task_type.add_cli_arguments(sub)
        add(sub)


def _add_statistics_options(parser: argparse.ArgumentParser) -> None:
    # Defaults are resolved after parsing (tasks.common.resampling imports numpy).
    parser.add_argument(
        "--samples",
        type=int,
        help="bootstrap samples and randomisation trials (default: the platform's, 1000)",
    )
    parser.add_argument(
        "--seed", type=int, help="seed of the resamples (default: the platform's, 0)"
    )


def _add_score_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--ci",
        action="store_true",
        help="add the platform's 95%% bootstrap interval of the primary metric "
        "(paired percentile bootstrap over gold items; JSON key 'ci')",
    )
    _add_statistics_options(parser)
    parser.add_argument(
        "--plots",
        metavar="DIR",
        help="write the run page's figures to DIR as SVG, PNG and PDF",
    )


def _add_compare_options(parser: argparse.ArgumentParser) -> None:
    run = next(a for a in parser._actions if a.dest == "run")
    run.nargs = "+"
    run.help = "the runs to compare (two or more files)"
    parser.add_argument(
        "--name",
        action="append",
        default=[],
        help="system name of each run, in --run order (default: file names)",
    )
    parser.add_argument(
        "--metric",
        default="",
        help="the metric that ranks (one the task type declares rankable; "
        "default: its primary metric), as a phase's ranking settings choose it",
    )
    parser.add_argument(
        "--columns",
        default="",
        help="the table's metric columns in order, comma-separated (default: the "
        "task type's), as a phase's ranking settings choose them",
    )
    parser.add_argument(
        "--title",
        default="",
        help="what the tables are of, named in their captions (e.g. 'test set "
        "Test, track closed'; the overview-paper package's README gives it)",
    )
    parser.add_argument(
        "--label",
        default="",
        help="LaTeX label suffix: \\label{tab:results-LABEL} and tab:pvalues-LABEL",
    )
    parser.add_argument(
        "--format",
        choices=("text", "csv", "json", "latex"),
        default="text",
        help="output format (default: text)",
    )
    _add_statistics_options(parser)
    parser.add_argument(
        "--alpha", type=float, default=0.05, help="significance level (0.05)"
    )
    parser.add_argument(
        "--gold-version",
        type=int,
        default=1,
        help="gold version shown in the signature (the platform's test set's)",
    )
    parser.add_argument(
        "--plots",
        metavar="DIR",
        help="write the leaderboard's comparison figures to DIR (SVG, PNG, PDF)",
    )


def main(argv: Sequence[str] | None = None) -> int:
    from tasks.common.cli_files import quiet_broken_pipe

    argv = list(sys.argv[1:] if argv is None else argv)
    return quiet_broken_pipe(lambda: _main(argv))


def _main(argv: list[str]) -> int:
    from tasks.common.gcpause import gc_paused

    with gc_paused():  # the modules' objects make no garbage worth a collection
        try:
            parser = build_parser(argv)
            args = parser.parse_args(argv)
            if args.command in ("score", "compare"):
                registry.get(args.slug)  # imported now (and cached by the registry)
        except registry.UnimportableTaskType as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    if args.command == "score":
        from tasks.cli_score import score

        return score(args)
    if args.command == "compare":
        from tasks.cli_score import compare

        return compare(args)
    from tasks.mt_lexicon_probe.cli import run_probe

    return run_probe(args)


if __name__ == "__main__":
    from tasks.common.gcpause import exit_settled

    exit_settled(main())
