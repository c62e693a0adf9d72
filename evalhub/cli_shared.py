"""What every client command of ``evalhub`` shares (``evalhub submit``/``status`` in
``cli.py``, the organisers' ``task``/``gold``/``runs`` in ``cli_organiser.py``): the
exit statuses, the connection options, the progress bar and how problems and
refusals are printed. Standard library only: the offline scorer imports this
module's users, so it stays light."""

from __future__ import annotations

import argparse
import json
import re
import sys

EXIT_OK, EXIT_FAILED, EXIT_REJECTED, EXIT_REFUSED = 0, 1, 2, 3


def add_connection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", required=True, help="server, e.g. https://host")
    parser.add_argument(
        "--token", default=None, help="API token (default: $EVALHUB_TOKEN)"
    )


def safe_name(name: str) -> str:
    """A file name from user text: no folders, no leading dots, plain characters."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", name.rsplit("/", 1)[-1]).lstrip(".")
    return name[:100] or "run"


def detail(status: int, payload: dict[str, object]) -> str:
    """A refusal in a sentence: what the server said, and its status."""
    if status == 401:
        said = payload.get("detail")
        if said and said != "Unauthorized":
            return f"the token was not accepted: {said}"
        return "the token was not accepted (revoked, expired or mistyped?)"
    return f"{payload.get('detail', 'request failed')} (HTTP {status})"


def print_problems(payload: dict[str, object]) -> None:
    """A 422 answer's problems on stderr, each with its file and line."""
    print(f"rejected: {payload.get('detail')}", file=sys.stderr)
    errors = payload.get("errors") or []
    for problem in errors:  # type: ignore[union-attr]
        where = problem["file"] + (
            f", line {problem['line']}" if problem.get("line") else ""
        )
        print(f"error: {where}: {problem['message']}", file=sys.stderr)
    more = int(payload.get("total", 0)) - len(errors)  # type: ignore[arg-type]
    if more > 0:
        print(f"... and {more} more problems", file=sys.stderr)


class ProgressBar:
    """``Uploading run.tsv [#####     ] 50% 1.0/2.0 MB`` on stderr (redrawn in place
    on a terminal; one final line otherwise)."""

    WIDTH = 30

    def __init__(self, name: str, stream=None, *, verb: str = "Uploading"):  # noqa: ANN001
        self.name = name
        self.verb = verb
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.done = False

    def __call__(self, sent: int, total: int) -> None:
        if self.tty or sent >= total:
            share = 1.0 if total == 0 else sent / total
            filled = int(self.WIDTH * share)
            bar = "#" * filled + " " * (self.WIDTH - filled)
            line = (
                f"{self.verb} {self.name} [{bar}] {share:4.0%} "
                f"{sent / 1e6:.1f}/{total / 1e6:.1f} MB"
            )
            end = "\n" if sent >= total else ""
            if sent >= total:
                if self.done:
                    return
                self.done = True
            print(("\r" if self.tty else "") + line, end=end, file=self.stream)
            self.stream.flush()


def setting_values(
    specs: list[str], *, text_keys: tuple[str, ...] = ()
) -> dict[str, object] | str:
    """``KEY=VALUE`` arguments as the API's values, or what is wrong: ``columns``
    a comma-separated list, the keys of ``text_keys`` text, the others JSON where they
    parse (``true``, ``1.5``, ``1000``), else text."""
    values: dict[str, object] = {}
    for spec in specs:
        key, sep, value = spec.partition("=")
        if not sep or not key:
            return f"{spec!r}: expected KEY=VALUE"
        if key == "columns":
            values[key] = [c.strip() for c in value.split(",") if c.strip()]
        elif key in text_keys:
            values[key] = value
        else:
            try:
                values[key] = json.loads(value)
            except ValueError:
                values[key] = value
    return values
