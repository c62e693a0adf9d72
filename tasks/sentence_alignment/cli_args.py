"""The ``evalhub score sentence_alignment`` arguments (the spec's CLI contract). A module of
its own, importing nothing heavy, so ``--help`` and argument errors come at once."""

from __future__ import annotations

import argparse

#: ``metrics.ARCADE_LEVELS`` (a test keeps them equal; metrics imports numpy).
ARCADE_LEVELS = ("alignment", "sentence", "word", "char")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--source", help="source sentences, one per line (one document)"
    )
    parser.add_argument(
        "--target", help="target sentences, one per line (one document)"
    )
    parser.add_argument(
        "--documents",
        help="instead of --source and --target: a test set's bitexts, a zip of "
        "<document>.src and <document>.tgt (as the task page offers it); --gold and "
        "--run then hold every document (a zip of <document>.align, or '# "
        "<document>' lines) and the counts are summed over them, as on the platform",
    )
    parser.add_argument(
        "--gold", required=True, help="reference bisegments [i, j]:[k], 0-based"
    )
    parser.add_argument(
        "--run", required=True, help="the run's bisegments, same format"
    )
    parser.add_argument(
        "--ignore-other-documents",
        action="store_true",
        help="with --documents: skip the run's documents that are not in it (one "
        "run file covers every test set of a phase)",
    )
    parser.add_argument(
        "--primary-granularity",
        choices=ARCADE_LEVELS,
        default="sentence",
        help="granularity of the primary F1 (default: sentence)",
    )
