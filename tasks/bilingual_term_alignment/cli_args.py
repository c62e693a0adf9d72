"""The ``evalhub score bilingual_term_alignment`` arguments (the spec's CLI contract). A module of
its own, importing nothing heavy, so ``--help`` and argument errors come at once."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--gold", required=True, help="gold dictionary, source<TAB>target"
    )
    parser.add_argument("--run", required=True, help="ranked run, source<TAB>target")
    parser.add_argument("--source-terms", required=True, help="D1, one term per line")
    parser.add_argument("--target-terms", required=True, help="D2, one term per line")
    parser.add_argument(
        "--cap-policy",
        choices=("reject", "truncate"),
        default="reject",
        help="a run longer than the cap is rejected (default) or truncated",
    )
    parser.add_argument(
        "--cap-factor",
        type=float,
        default=10.0,
        help="cap = CAP_FACTOR x mean(|D1|, |D2|) ranked pairs (default 10)",
    )
