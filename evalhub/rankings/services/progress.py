"""How far the statistics workers are in recomputing a task's test sets (the
organiser dashboard's panel), as ``runstats`` records it on each
``TestSetStatistics`` row while a refresh computes many runs' shares."""

from __future__ import annotations

from dataclasses import dataclass

from evalhub.rankings.models import TestSetStatistics


@dataclass(frozen=True)
class Progress:
    test_set: str
    done: int
    total: int

    @property
    def percent(self) -> int:
        return 100 * self.done // self.total if self.total else 0


def progress(*, task: object) -> list[Progress]:
    """The task's test sets whose statistics a worker is recomputing, with how
    many steps of how many are done (two per run: its share, then its pairs)."""
    return [
        Progress(name, done, total)
        for name, done, total in TestSetStatistics.objects.filter(
            test_set__phase__task=task, progress_total__gt=0
        )
        .order_by("test_set__phase__pk", "test_set__pk")
        .values_list("test_set__name", "progress_done", "progress_total")
    ]
