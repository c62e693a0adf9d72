"""A test set's files from its organisers, in two steps, so that nothing is used
for scoring before the organiser has seen what the task type understood. The one
path for both the console's pages and the organiser API (``evalhub test-data push``).

1. :func:`stage` (the upload request, bounded work): the upload handler caps each
   file's size while it streams (``upload_limits``), a zip's directory and members
   are checked against the zip limits (``archives.open_zip``); then the task type
   parses the candidate files *together with the test set's stored ones*, as the
   scorer will (inputs, then the gold against them), and summarises the gold before
   and after (:meth:`TaskType.summarise_gold`). Up to
   ``EVALHUB_INLINE_VALIDATION_BYTES`` this happens in the request; larger files
   are parsed in a child process under the validation limits (``sandbox``), as
   large runs are. Every problem names the uploaded file and its line, and nothing
   is kept. A file that parses goes to a temporary area of private storage, tied
   to the test set and the organiser (one draft each: a new upload replaces the
   last), described in the cache for ``drafts.DRAFT_SECONDS``.
2. :func:`preview` shows the draft: files replaced, counts before and after,
   examples, warnings, the runs that will be rescored. :func:`confirm` stores it
   through ``datasets.store_file`` (inputs first) if the test set's files are still
   those it was checked with: adding or replacing any file the scorer reads (an
   input or gold) bumps the test set's data version and scores every run that
   rested on the old files again (``services/runs/lifecycle.data_changed``), which
   replays the Ladder.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import QuerySet

from evalhub.competitions import archives, sandbox
from evalhub.competitions.models import Submission, TestSet, TestSetFile
from evalhub.competitions.services.data import datasets, drafts
from evalhub.competitions.services.runs import stale
from tasks.base import FileRole, FormatError, GoldSummary, Problem, SettingsError

log = logging.getLogger(__name__)
#: The key of the task settings' digest in a draft's basis (no role has it).
SETTINGS_KEY = "#settings"


class UploadRejected(Exception):
    """The files cannot be used; ``problems`` name the uploaded file and line."""

    def __init__(self, problems: list[Problem], total: int | None = None):
        self.problems = problems
        self.total = max(total or 0, len(problems))
        super().__init__("; ".join(str(p) for p in problems[:5]))


class DraftStale(ValueError):
    """The test set's files changed since the draft was checked."""


@dataclass(frozen=True, slots=True)
class Upload:
    role: str
    name: str
    data: bytes


def roles(test_set: TestSet) -> tuple[tuple[FileRole, bool], ...]:
    """The task type's file roles, inputs first, each with whether it is gold."""
    task_type = test_set.phase.task.type
    gold = {r.key for r in task_type.gold_roles}
    return tuple(
        (r, r.private or r.key in gold)
        for r in (*task_type.input_roles, *task_type.gold_roles)
    )


# ---- understanding files (in the request or in a child under limits) --------------


def _understand(
    task_type: object,
    raw_settings: object,
    inputs: dict[str, bytes],
    gold: dict[str, bytes] | None,
) -> dict:
    """JSON: ``{"summary": ...|None}`` or ``{"problems": [[file, line, msg]], ...}``."""
    try:
        settings_ = task_type.parse_settings(raw_settings)  # type: ignore[attr-defined]
        parsed = task_type.parse_inputs(inputs, settings_)  # type: ignore[attr-defined]
        if gold is None:
            return {"summary": None}
        parsed_gold = task_type.parse_gold(gold, parsed, settings_)  # type: ignore[attr-defined]
        summary = task_type.summarise_gold(parsed_gold, parsed, settings_)  # type: ignore[attr-defined]
        extra = task_type.gold_warnings(parsed_gold, settings_)  # type: ignore[attr-defined]
    except FormatError as exc:
        return {
            "problems": [[p.file, p.line, p.message] for p in exc.problems],
            "total": exc.total,
        }
    except SettingsError as exc:
        return {"problems": [["task settings", None, str(exc)]], "total": 1}
    warnings = tuple(dict.fromkeys((*summary.warnings, *extra)))
    return {
        "summary": GoldSummary(summary.counts, summary.examples, warnings).to_json()
    }


def _run(jobs: dict[str, tuple], inflated: int) -> dict[str, dict]:
    """Each job ``name: (task_type, settings, inputs, gold)`` understood; in a child
    under the validation limits when the files inflate to more than the inline
    limit."""

    def work() -> dict[str, dict]:
        return {name: _understand(*args) for name, args in jobs.items()}

    if inflated <= settings.INLINE_VALIDATION_BYTES:
        try:
            return work()
        except Exception as exc:  # noqa: BLE001 - a parser bug: its type, not its text
            raise sandbox.ChildFailed(type(exc).__name__) from None
    return sandbox.run_limited(  # type: ignore[return-value]
        work,
        cpu_seconds=settings.VALIDATION_CPU_SECONDS,
        memory_mb=settings.VALIDATION_MEMORY_MB,
    )


def _inflated(data: bytes) -> int:
    """Bytes the file inflates to; ArchiveError for a zip over the limits."""
    if not archives.is_zip(data):
        return len(data)
    return archives.open_zip(data).declared_bytes


def _stored_size(data: bytes) -> int:
    """A stored file passed the limits once; if they were lowered since, count it
    at its largest allowed size (parsed under limits, then)."""
    try:
        return _inflated(data)
    except archives.ArchiveError:
        return max(len(data), settings.INLINE_VALIDATION_BYTES + 1)


def _rename(problem: list, names: Mapping[str, str]) -> Problem:
    """A parser's problem names the role ("gold", "gold:doc.align"); the organiser
    knows the file by the name it was uploaded (or stored) under."""
    file, line, message = problem
    role, colon, rest = str(file).partition(":")
    if role in names:
        file = names[role] + (colon + rest if colon else "")
    return Problem(str(file), line, message)


def _basis(test_set: TestSet, files: Iterable[TestSetFile]) -> dict[str, str]:
    """What a draft was checked with: the stored files' sha256 by role and the task
    settings (they change how the files are read)."""
    raw = json.dumps(test_set.phase.task.task_settings, sort_keys=True)
    return {
        **{f.role: f.sha256 for f in files},
        SETTINGS_KEY: hashlib.sha256(raw.encode()).hexdigest(),
    }


def _read(f: TestSetFile) -> bytes:
    with f.file.open("rb") as handle:
        return handle.read()


def stage(*, test_set: TestSet, user: object, uploads: list[Upload]) -> drafts.Draft:
    """Check ``uploads`` with the test set's stored files and keep them as the
    organiser's draft; UploadRejected lists every problem."""
    task = test_set.phase.task
    task_type = task.type
    kinds = dict((r.key, private) for r, private in roles(test_set))
    uploads = [u for u in uploads if u.data or u.name]
    if not uploads:
        raise UploadRejected([Problem("upload", None, "choose at least one file")])
    problems: list[Problem] = []
    inflated = 0
    for u in uploads:
        if u.role not in kinds:
            problems.append(Problem(u.name, None, f"unknown file role {u.role!r}"))
            continue
        try:
            inflated += _inflated(u.data)
        except archives.ArchiveError as exc:
            problems.append(Problem(u.name, None, str(exc)))
    if problems:
        raise UploadRejected(problems)
    stored = {f.role: f for f in test_set.files.all()}
    old = {role: _read(f) for role, f in stored.items()}
    new = {**old, **{u.role: u.data for u in uploads}}
    names = {role: f.original_name for role, f in stored.items()}
    names.update({u.role: u.name for u in uploads})

    def split(files: dict[str, bytes]) -> tuple[dict, dict | None]:
        inputs = {r: d for r, d in files.items() if not kinds.get(r)}
        gold = {r: d for r, d in files.items() if kinds.get(r)}
        complete = all(g.key in gold for g in task_type.gold_roles if g.required)
        return inputs, gold if complete and gold else None

    missing = [
        r.label for r in task_type.input_roles if r.required and r.key not in new
    ]
    if missing:
        raise UploadRejected(
            [
                Problem(
                    u.name,
                    None,
                    f"the test set has no {', '.join(missing)} yet: the gold is "
                    "checked against it, upload it too",
                )
                for u in uploads
                if kinds[u.role]
            ]
            or [Problem("upload", None, f"{', '.join(missing)} is still missing")]
        )
    jobs = {"after": (task_type, task.task_settings, *split(new))}
    if split(old)[1] is not None:
        jobs["before"] = (task_type, task.task_settings, *split(old))
    try:
        answers = _run(jobs, inflated + sum(_stored_size(d) for d in old.values()))
    except sandbox.LimitExceeded as exc:
        what = (
            f"more than {settings.VALIDATION_CPU_SECONDS} s of CPU time"
            if exc.which == "cpu"
            else f"more than {settings.VALIDATION_MEMORY_MB} MiB of memory"
        )
        raise UploadRejected(
            [
                Problem(u.name, None, f"reading it took {what}: too large or complex")
                for u in uploads
            ]
        ) from None
    except sandbox.ChildFailed as exc:
        log.warning(
            "console: files for test set %s could not be read: %s", test_set.pk, exc
        )
        raise UploadRejected(
            [Problem(u.name, None, "this file could not be read") for u in uploads]
        ) from None
    after = answers["after"]
    if "problems" in after:
        raise UploadRejected(
            [_rename(p, names) for p in after["problems"]], after["total"]
        )
    before = answers.get("before", {})
    return drafts.keep(
        test_set_id=test_set.pk,
        user_id=user.pk,  # type: ignore[attr-defined]
        uploads=[(u.role, u.name, u.data) for u in uploads],
        kinds=kinds,
        basis=_basis(test_set, stored.values()),
        before=before.get("summary"),
        after=after["summary"],
    )


# ---- preview and confirmation --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Change:
    role: str
    label: str
    private: bool
    name: str
    size: int
    old_name: str | None
    old_size: int | None


@dataclass(frozen=True, slots=True)
class Preview:
    draft: drafts.Draft
    changes: tuple[Change, ...]
    #: (label, count before or None, count after or None)
    counts: tuple[tuple[str, int | None, int | None], ...]
    #: a gold file is added or replaced
    changes_gold: bool
    #: the runs scored again on the new files, inputs or gold (``_rescored``: the
    #: runs ``data_changed`` queues, which the rescoring page shows outdated until
    #: they are scored)
    rescored: tuple[Submission, ...]


def preview(*, test_set: TestSet, draft: drafts.Draft) -> Preview:
    labels = {r.key: r.label for r, _ in roles(test_set)}
    stored = {f.role: f for f in test_set.files.all()}
    changes = tuple(
        Change(
            role=f.role,
            label=labels.get(f.role, f.role),
            private=f.private,
            name=f.name,
            size=f.size,
            old_name=stored[f.role].original_name if f.role in stored else None,
            old_size=stored[f.role].size if f.role in stored else None,
        )
        for f in draft.files
    )
    changes_gold = any(f.private for f in draft.files)
    rescored = tuple(
        _rescored(test_set, draft, set(stored)).select_related("team").order_by("pk")
    )
    before = dict(draft.before.counts) if draft.before else {}
    after = dict(draft.after.counts) if draft.after else {}
    counts = tuple(
        (label, before.get(label), after.get(label))
        for label in dict.fromkeys([*after, *before])
    )
    return Preview(
        draft=draft,
        changes=changes,
        counts=counts,
        changes_gold=changes_gold,
        rescored=rescored,
    )


def _rescored(
    test_set: TestSet, draft: drafts.Draft, before: set[str]
) -> QuerySet[Submission]:
    """The runs that storing the draft over files of roles ``before`` scores again
    (``stale.affected_by``: what ``lifecycle.data_changed`` queues)."""
    return stale.affected_by(
        test_set,
        before=before,
        after=before | {f.role for f in draft.files},
        inputs=any(not f.private for f in draft.files),
    )


@dataclass(frozen=True, slots=True)
class Stored:
    files: int
    rescored: int


def confirm(*, test_set: TestSet, user: object, token: str) -> Stored:
    """Store the draft (inputs first, then gold) if the test set's files are those
    it was checked with; DraftGone or DraftStale otherwise."""
    draft = drafts.load(test_set_id=test_set.pk, user_id=user.pk, token=token)  # type: ignore[attr-defined]
    contents = {}
    for f in draft.files:
        with default_storage.open(f.path, "rb") as handle:
            data = handle.read()
        if hashlib.sha256(data).hexdigest() != f.sha256:
            raise drafts.DraftGone(
                "the uploaded file changed in storage; upload it again"
            )
        contents[f.role] = data
    rescored = 0
    with transaction.atomic():
        TestSet.objects.select_for_update().filter(pk=test_set.pk).first()
        test_set.phase.task.refresh_from_db(fields=["task_settings"])
        current = _basis(test_set, test_set.files.all())
        if current != dict(draft.basis):
            raise DraftStale(
                "the test set's files or the task settings changed since this "
                "upload was checked (another organiser?); upload the files again"
            )
        rescored = _rescored(
            test_set, draft, {f.role for f in test_set.files.all()}
        ).count()
        for f in sorted(draft.files, key=lambda f: f.private):
            datasets.store_file(
                test_set=test_set,
                role=f.role,
                filename=f.name,
                data=contents[f.role],
                checked=True,
            )
    pk, user_id = test_set.pk, user.pk  # type: ignore[attr-defined]
    transaction.on_commit(lambda: drafts.clear_area(pk, user_id))
    return Stored(files=len(draft.files), rescored=rescored)
