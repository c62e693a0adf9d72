"""The ``evalhub score sentence_alignment`` arguments (the spec's CLI contract). A module of
its own, importing nothing heavy, so ``--help`` and argument errors come at once."""

from __future__ import annotations

import argparse

#: ``metrics.ARCADE_LEVELS`` (a test keeps them equal; metrics imports numpy).
ARCADE_LEVELS = ("alignment", "sentence", "word", "char")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--source", required=True, help="source sentences, one per line"
    )
    parser.add_argument(
        "--target", required=True, help="target sentences, one per line"
    )
    parser.add_argument(
        "--gold", required=True, help="reference bisegments [i, j]:[k], 0-based"
    )
    parser.add_argument(
        "--run", required=True, help="the run's bisegments, same format"
    )
    parser.add_argument(
        "--primary-granularity",
        choices=ARCADE_LEVELS,
        default="sentence",
        help="granularity of the primary F1 (default: sentence)",
    )
