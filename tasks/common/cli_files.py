"""Reading the files named on the ``evalhub score`` / ``evalhub compare`` command
line, with errors that name the option and the path as given (``--run r/001.align:
is a directory, not a file``); the parsers then report lines as ``--run r/001.align,
line 3: ...``. Gold and input files with nothing but blank lines are rejected (they
would score every run 0); a blank run is left to the task type's parser, as on the
platform."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

from tasks.errors import FormatError

BOM = b"\xef\xbb\xbf"


def label(option: str, path: str) -> str:
    """How errors name a file: ``--gold data/gold.tsv``."""
    return f"{option} {path}"


def read_input(path: str, option: str, *, allow_blank: bool = False) -> bytes:
    """The bytes of ``path``; FormatError naming ``option`` and ``path`` when it is
    missing, a directory, unreadable or (unless ``allow_blank``) blank."""
    where = label(option, path)
    p = Path(path)
    if p.is_dir():
        raise FormatError.at(where, None, "is a directory, not a file")
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise FormatError.at(where, None, "no such file") from None
    except OSError as exc:
        raise FormatError.at(where, None, f"cannot be read ({exc.strerror})") from None
    text = data.removeprefix(BOM)
    if not allow_blank and (not text or text.isspace()):  # (strip() would copy it)
        message = "is empty" if not data else "has only blank lines"
        raise FormatError.at(where, None, message)
    return data


def quiet_broken_pipe(run: Callable[[], int]) -> int:
    """Run a command; when the reader of stdout goes away (``evalhub ... | head``),
    end quietly with status 141 (128 + SIGPIPE) instead of a traceback."""
    try:
        code = run()
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        # Python flushes stdout again at exit: point it at /dev/null first.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
