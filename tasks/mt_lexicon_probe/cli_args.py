"""The ``evalhub score mt_lexicon_probe`` arguments (the spec's CLI contract). A module of
its own, importing nothing heavy, so ``--help`` and argument errors come at once."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--probes",
        required=True,
        help="probe TSV; a 6th column of references (ref1|ref2) is used to propose c",
    )
    parser.add_argument("--run", required=True, help="translations, one line per probe")
    parser.add_argument(
        "--judgements", help="TSV id<TAB>tag for this run (may be partial)"
    )
    parser.add_argument(
        "--references",
        help="private references TSV id<TAB>ref1|ref2 (overrides column 6)",
    )
    parser.add_argument(
        "--memory",
        help="judgement memory TSV id<TAB>translation<TAB>tag from other systems",
    )
    parser.add_argument(
        "--no-proposed",
        action="store_true",
        help="do not count proposed c until confirmed",
    )
