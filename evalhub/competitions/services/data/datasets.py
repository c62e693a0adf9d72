"""Organiser operations on test sets: storing inputs and gold (validated before they
replace the stored file), revealing private scores, releasing the gold."""

from __future__ import annotations

import hashlib
from datetime import datetime

from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from evalhub.competitions import signals
from evalhub.competitions.models import SharedTask, TestSet, TestSetFile
from evalhub.competitions.services.boards import boardcache
from evalhub.competitions.services.data import taskdata
from tasks.base import FormatError


class UnknownRole(ValueError):
    pass


class GoldReleaseRefused(ValueError):
    """Releasing the gold would let anyone compute the hidden scores of these private
    test sets: reveal them first, or confirm explicitly."""

    def __init__(self, unrevealed: list[str]):
        self.unrevealed = unrevealed
        super().__init__(
            "The gold was not released: the private scores of "
            + ", ".join(unrevealed)
            + " are not revealed yet (whoever reads the gold could compute them). "
            "Reveal them first, or confirm the release explicitly."
        )


def is_private(*, test_set: TestSet, role: str) -> bool:
    """Whether ``role`` is a gold (private) role of the test set's task type;
    UnknownRole if the type has no such role."""
    task_type = test_set.phase.task.type
    roles = {r.key: r for r in (*task_type.input_roles, *task_type.gold_roles)}
    if role not in roles:
        raise UnknownRole(
            f"unknown file role {role!r}; this task type expects: {', '.join(roles)}"
        )
    return roles[role].private or role in {r.key for r in task_type.gold_roles}


def check_file(
    *, test_set: TestSet, role: str, data: bytes
) -> tuple[bool, tuple[str, ...]]:
    """Validate a candidate input/gold file with the task type, together with the
    test set's other stored files. Returns (private, notes for the organiser); raises
    UnknownRole or FormatError. Stores nothing."""
    task_type = test_set.phase.task.type
    private = is_private(test_set=test_set, role=role)
    warnings: tuple[str, ...] = ()
    if private:
        others = {
            f.role: f for f in test_set.files.filter(private=True).exclude(role=role)
        }
        gold_files = {r: _read(f) for r, f in others.items()}
        gold_files[role] = data
        if all(r.key in gold_files for r in task_type.gold_roles if r.required):
            warnings = taskdata.validate_gold(test_set=test_set, gold_files=gold_files)
    else:
        settings = task_type.parse_settings(test_set.phase.task.task_settings)
        others = {
            f.role: _read(f)
            for f in test_set.files.filter(private=False).exclude(role=role)
        }
        others[role] = data
        if all(r.key in others for r in task_type.input_roles if r.required):
            task_type.parse_inputs(others, settings)
    return private, warnings


def store_file(
    *, test_set: TestSet, role: str, filename: str, data: bytes, checked: bool = False
) -> tuple[TestSetFile, tuple[str, ...]]:
    """Add or replace one input/gold file; returns it with the task type's notes on
    the gold (e.g. lines that merged). The file is checked first (FormatError leaves
    the stored one untouched) unless ``checked``: the caller has parsed exactly these
    bytes with the test set's stored files (the organiser console's drafts, parsed
    under the validation limits); adding or replacing gold bumps ``gold_version``
    and scores the affected runs again (``lifecycle.data_changed``)."""
    if checked:
        private, warnings = is_private(test_set=test_set, role=role), ()
    else:
        private, warnings = check_file(test_set=test_set, role=role, data=data)
    digest = hashlib.sha256(data).hexdigest()
    with transaction.atomic():
        existing = TestSetFile.objects.filter(test_set=test_set, role=role).first()
        obj = existing or TestSetFile(test_set=test_set, role=role)
        old_name = existing.file.name if existing is not None else ""
        obj.private = private
        obj.original_name = filename[:255]
        obj.sha256 = digest
        obj.size = len(data)
        # The new file gets a name of its own; the old one is deleted only once the
        # row pointing at the new one is committed, so a rollback loses nothing.
        obj.file.save(
            filename.rsplit("/", 1)[-1][:100] or role, ContentFile(data), save=False
        )
        new_name, storage = obj.file.name, obj.file.storage
        try:
            # Saving a gold file bumps the gold version and queues the affected
            # runs again (``receivers.py`` -> ``lifecycle.data_changed``).
            obj.save()
            test_set.refresh_from_db(fields=["gold_version"])
        except BaseException:
            storage.delete(new_name)
            raise
        if old_name and old_name != new_name:
            transaction.on_commit(lambda: storage.delete(old_name))
    return obj, warnings


def delete_stored(files: list[TestSetFile]) -> None:
    """Remove the stored files of rows whose transaction rolled back."""
    for f in files:
        if f.file.name:
            f.file.storage.delete(f.file.name)


def _read(f: TestSetFile) -> bytes:
    with f.file.open("rb") as handle:
        return handle.read()


def reveal(*, test_set: TestSet) -> None:
    changed = TestSet.objects.filter(pk=test_set.pk, revealed=False).update(
        revealed=True
    )
    boardcache.invalidate(test_set_id=test_set.pk)
    if changed and test_set.visibility == TestSet.Visibility.PRIVATE:
        pk = test_set.pk
        transaction.on_commit(
            lambda: signals.test_set_revealed.send(sender=TestSet, test_set_id=pk)
        )


def reveal_due(*, now: datetime | None = None) -> list[int]:
    """Reveal the private test sets whose organisers opted in to a reveal when
    their phase closes (``TestSet.reveal_at_phase_end``) and whose phase has
    closed: exactly as a reveal by hand (``reveal``: boards, notifications and the
    mail to the teams). Beat calls it (``jobs.reveal_due_test_sets``); a second
    call finds nothing left. Returns the test sets revealed."""
    due = TestSet.objects.filter(
        reveal_at_phase_end=True,
        revealed=False,
        visibility=TestSet.Visibility.PRIVATE,
        phase__closes_at__lte=now or timezone.now(),
    ).order_by("pk")
    done = []
    for test_set in due:
        with transaction.atomic():
            reveal(test_set=test_set)
        done.append(test_set.pk)
    return done


def _unrevealed_private(task_pk: object):  # noqa: ANN202
    return TestSet.objects.filter(
        phase__task=task_pk, visibility=TestSet.Visibility.PRIVATE, revealed=False
    )


def release_gold(*, task: SharedTask, confirm_unrevealed: bool = False) -> bool:
    """Per-item outcomes and gold files become public. Returns False if they already
    were (nothing is sent twice). Raises ``GoldReleaseRefused`` while a private test
    set of the task is not revealed, unless ``confirm_unrevealed``; the check is part
    of the update, so a test set made private meanwhile is not missed."""
    rows = SharedTask.objects.filter(pk=task.pk, gold_released=False)
    if not confirm_unrevealed:
        rows = rows.exclude(Exists(_unrevealed_private(OuterRef("pk"))))
    changed = rows.update(gold_released=True)
    if not changed and not confirm_unrevealed:
        unrevealed = [
            f"{ts.phase.name} / {ts.name}"
            for ts in _unrevealed_private(task.pk).select_related("phase")
        ]
        if (
            unrevealed
            and not SharedTask.objects.filter(pk=task.pk, gold_released=True).exists()
        ):
            raise GoldReleaseRefused(unrevealed)
    if changed:
        pk = task.pk
        boardcache.invalidate_task(task=pk)
        transaction.on_commit(
            lambda: signals.gold_released.send(sender=SharedTask, task_id=pk)
        )
    return bool(changed)


__all__ = [
    "FormatError",
    "GoldReleaseRefused",
    "UnknownRole",
    "delete_stored",
    "is_private",
    "release_gold",
    "reveal",
    "store_file",
]
