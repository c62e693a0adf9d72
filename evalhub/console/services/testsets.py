"""The test sets page: each phase's test sets with their files per role and state,
and adding or editing a test set."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count

from evalhub.competitions.models import Evaluation, Phase, SharedTask, TestSet
from evalhub.competitions.services.test_data import roles
from tasks.base import FileRole


@dataclass(frozen=True, slots=True)
class FileState:
    role: FileRole
    private: bool
    name: str | None
    size: int | None
    sha256: str | None
    uploaded_at: object | None


@dataclass(frozen=True, slots=True)
class TestSetState:
    test_set: TestSet
    files: tuple[FileState, ...]
    scored_runs: int
    missing: tuple[str, ...]

    __test__ = False

    @property
    def has_gold(self) -> bool:
        return any(f.private and f.name for f in self.files)


@dataclass(frozen=True, slots=True)
class PhaseState:
    phase: Phase
    test_sets: tuple[TestSetState, ...]


def overview(*, task: SharedTask) -> tuple[PhaseState, ...]:
    scored = dict(
        Evaluation.objects.filter(test_set__phase__task=task)
        .values_list("test_set")
        .annotate(n=Count("submission", distinct=True))
    )
    out = []
    for phase in task.phases.prefetch_related("test_sets__files"):
        states = []
        for ts in phase.test_sets.all():
            ts.phase = phase
            stored = {f.role: f for f in ts.files.all()}
            files = []
            for role, private in roles(ts):
                f = stored.get(role.key)
                files.append(
                    FileState(
                        role=role,
                        private=private,
                        name=f.original_name if f else None,
                        size=f.size if f else None,
                        sha256=f.sha256 if f else None,
                        uploaded_at=f.uploaded_at if f else None,
                    )
                )
            missing = tuple(
                s.role.label for s in files if s.role.required and s.name is None
            )
            states.append(TestSetState(ts, tuple(files), scored.get(ts.pk, 0), missing))
        out.append(PhaseState(phase, tuple(states)))
    return tuple(out)


def next_order(*, phase: Phase) -> int:
    last = phase.test_sets.order_by("-order").values_list("order", flat=True).first()
    return 0 if last is None else last + 1


def phases(*, task: SharedTask) -> list[Phase]:
    return list(task.phases.all())
