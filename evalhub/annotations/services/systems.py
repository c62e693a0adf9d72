"""The systems of a test set: every scored run of its phase, parsed for it.

Parsed runs are cached per process by (run, file hash, test set), like
``taskdata`` caches inputs and gold, so the annotation page and the re-scoring job do
not parse every run file on every request.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from evalhub.competitions.models import Submission, TestSet
from evalhub.competitions.services.data import taskdata
from tasks.mt_lexicon_probe.probes import ProbeSet, Run

SLUG = "mt_lexicon_probe"


class NotAnnotatable(Exception):
    """The test set does not belong to an mt_lexicon_probe task."""


@dataclass(frozen=True, slots=True)
class System:
    submission: Submission
    run: Run

    @property
    def label(self) -> str:
        s = self.submission
        return f"{s.team.name} · {s.method_name} (run {s.pk})"


@dataclass(frozen=True, slots=True)
class Workspace:
    test_set: TestSet
    context: taskdata.Context
    gold: object
    systems: tuple[System, ...]

    @property
    def inputs(self) -> ProbeSet:
        return self.context.inputs  # type: ignore[return-value]


def scored_runs(test_set: TestSet) -> list[Submission]:
    return list(
        Submission.objects.filter(
            phase_id=test_set.phase_id,
            status=Submission.Status.SCORED,
            evaluations__test_set=test_set,
        )
        .select_related("team", "phase__task")
        .order_by("pk")
    )


@functools.lru_cache(maxsize=256)
def _parse(pk: int, sha256: str, test_set_pk: int, inputs: ProbeSet) -> Run:
    sub = Submission.objects.select_related("phase__task").get(pk=pk)
    task_type = sub.phase.task.type
    settings = sub.phase.task.parsed_settings()
    with sub.file.open("rb") as handle:
        data = handle.read()
    return task_type.parse_run(data, sub.original_name, inputs, settings)


def load(test_set: TestSet) -> Workspace:
    """Inputs, gold and every scored run of ``test_set`` (NotAnnotatable otherwise)."""
    if test_set.phase.task.task_type != SLUG:
        raise NotAnnotatable(test_set.pk)
    context = taskdata.load_inputs(test_set)
    gold = taskdata.load_gold(test_set)
    systems = tuple(
        System(sub, _parse(sub.pk, sub.sha256, test_set.pk, context.inputs))
        for sub in scored_runs(test_set)
    )
    return Workspace(test_set, context, gold, systems)


def clear_caches() -> None:
    _parse.cache_clear()
