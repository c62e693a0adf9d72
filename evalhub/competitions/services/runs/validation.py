"""Checking a run file: cheap checks in the web request, the full parse either in the
request (small files) or in a worker's child process under CPU-time and memory limits
(large ones), so no file can hold a web process for long.

- :func:`precheck` (in the request, bounded): zip directory and limits
  (``archives.open_zip``), encoding of the first lines of the file or of each zip
  member. Returns the bytes the file inflates to.
- :func:`parse_problems`: the task type's parser against every test set's *public*
  inputs (gold is never consulted, so no message can reveal it). A run that parses
  but leaves nothing to score on any test set (every line removed: repeats, pairs
  outside the vocabulary, blank lines; ``TaskType.nothing_to_score``) is a problem
  too: it is rejected with the reason instead of being "scored" 0 and counted.
- :func:`validate_submission` (worker job body): a ``validating`` row is parsed in a
  child process (``sandbox.run_limited``) and moves to ``queued`` (enqueued for
  scoring) or to ``rejected`` with every problem, file and line; rejected runs do not
  count against the limits. The status changes are ``services/runs/lifecycle.py``'s (which
  also caps how often a lost validation job is sent again).
"""

from __future__ import annotations

import logging

from django.conf import settings

from evalhub.competitions import archives, sandbox
from evalhub.competitions.models import Phase, Submission
from evalhub.competitions.services.data import taskdata
from evalhub.competitions.services.runs import lifecycle
from tasks.base import FormatError, Problem
from tasks.common.textio import decode_text

log = logging.getLogger(__name__)

#: Bytes of each file (or zip member) whose encoding is checked in the request.
HEAD_BYTES = 64 * 1024
#: Zip members whose first lines are checked in the request (the rest by the parser).
HEAD_MEMBERS = 100


class NoTestSet(Exception):
    """The phase has no test set to validate against."""


def precheck(*, data: bytes, filename: str) -> int:
    """Cheap checks; FormatError on a problem, else the bytes the file inflates to."""
    if not archives.is_zip(data):
        _check_head(data[:HEAD_BYTES], filename)
        return len(data)
    try:
        opened = archives.open_zip(data)
        for info in opened.members[:HEAD_MEMBERS]:
            head = archives.read_head(opened, info, HEAD_BYTES)
            _check_head(head, info.filename.rsplit("/", 1)[-1])
    except archives.ArchiveError as exc:
        raise FormatError.at(filename, None, str(exc)) from None
    return opened.declared_bytes


def _check_head(head: bytes, file: str) -> None:
    """The complete lines of a file's first bytes must be UTF-8 text."""
    cut = head.rfind(b"\n") + 1
    if cut:
        decode_text(head[:cut], file)


def parse_problems(
    *, phase: Phase, data: bytes, filename: str, limited: bool
) -> dict | None:
    """Parse the run for every test set of the phase: None if it parses, else
    ``{"problems": [[file, line, message], ...], "total": n}``. ``limited``: in a
    child process under the validation limits (sandbox.LimitExceeded)."""
    test_sets = taskdata.checkable(taskdata.phase_test_sets(phase))
    contexts = [taskdata.load_inputs(ts) for ts in test_sets]
    if not contexts:
        raise NoTestSet
    task_type, task_settings = contexts[0].task_type, contexts[0].settings
    inputs = [c.inputs for c in contexts]

    def parse() -> dict | None:
        try:
            runs = task_type.parse_phase_run(data, filename, inputs, task_settings)
        except FormatError as exc:
            return {
                "problems": [[p.file, p.line, p.message] for p in exc.problems],
                "total": exc.total,
            }
        empty = [task_type.nothing_to_score(run) for run in runs]
        if empty and all(empty):
            return _one(filename, f"nothing in this run can be scored: {empty[0]}")
        return None

    if not limited:
        return parse()
    return sandbox.run_limited(
        parse,
        cpu_seconds=settings.VALIDATION_CPU_SECONDS,
        memory_mb=settings.VALIDATION_MEMORY_MB,
    )


def to_problems(found: dict) -> tuple[tuple[Problem, ...], int]:
    problems = tuple(
        Problem(f, line, message) for f, line, message in found["problems"]
    )
    return problems, int(found["total"])


def validate_submission(*, submission_id: int) -> str:
    """A ``validating`` row: parse under limits, then queue or reject it. Idempotent:
    a row in any other state is left alone."""
    sub = (
        Submission.objects.select_related("phase__task")
        .filter(pk=submission_id, status=Submission.Status.VALIDATING)
        .first()
    )
    if sub is None:
        return "skipped"
    with sub.file.open("rb") as handle:
        data = handle.read()
    try:
        found = parse_problems(
            phase=sub.phase, data=data, filename=sub.original_name, limited=True
        )
    except NoTestSet:
        found = _one(sub.original_name, "this phase has no test set yet")
    except taskdata.MissingFiles:
        found = _one(
            sub.original_name,
            "this phase is not ready: a test set has no input files yet (nothing "
            "was counted; submit again once the organisers have added them)",
        )
    except sandbox.LimitExceeded as exc:
        what = (
            f"more than {settings.VALIDATION_CPU_SECONDS} s of CPU time"
            if exc.which == "cpu"
            else f"more than {settings.VALIDATION_MEMORY_MB} MiB of memory"
        )
        found = _one(
            sub.original_name,
            f"reading this file took {what}: it is too large or too complex to check",
        )
    except sandbox.ChildFailed as exc:
        log.warning("validation of run %s failed: %s", sub.pk, exc)
        found = _one(sub.original_name, "this file could not be read")
    return _decide(sub, found)


def _one(file: str, message: str) -> dict:
    return {"problems": [[file, None, message]], "total": 1}


def _decide(sub: Submission, found: dict | None) -> str:
    if found is not None:
        problems, _ = to_problems(found)
        moved = lifecycle.reject(sub.pk, message="\n".join(str(p) for p in problems))
        return "rejected" if moved else "skipped"
    return "queued" if lifecycle.validated(sub.pk) else "skipped"
