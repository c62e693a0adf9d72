"""The ``evalhub score term_extraction`` arguments (the spec's CLI contract). A module of
its own, importing nothing heavy, so ``--help`` and argument errors come at once."""

from __future__ import annotations

import argparse

from tasks.term_extraction import formats


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gold", required=True, help="gold term list")
    parser.add_argument("--run", required=True, help="run: one term per line")
    parser.add_argument("--tau", type=float, default=0.4, help="TermoMeter threshold")
    parser.add_argument("--casefold", action="store_true", help="ignore case")
    parser.add_argument(
        "--mode",
        choices=("default", "termeval"),
        default="default",
        help="termeval: run lowercased, gold as written (TermEval 2020 counts)",
    )
    parser.add_argument(
        "--exclude-label",
        action="append",
        default=[],
        metavar="LABEL",
        help="drop gold terms with this label (repeatable), e.g. Named_Entity",
    )
    parser.add_argument("--cap", type=int, help="evaluate only the first N terms")
    parser.add_argument(
        "--accept-format",
        action="append",
        default=[],
        choices=formats.RUN_FORMATS,
        help="also accept the run as CSV index,term or a JSON list",
    )
    parser.add_argument(
        "--json-list",
        type=int,
        metavar="I",
        help="score list I (0-based) of a JSON list of term lists",
    )
    parser.add_argument(
        "--ranked", action="store_true", help="line order of the run is a ranking"
    )
