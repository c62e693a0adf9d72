"""Means over incomplete cells (issue 42): a task type whose primary metric is a mean
over cells that may be empty (``TaskType.coverage_unit``: the MT-probe's word
classes, averaged over those with a judged item) says how many cells each run's
mean rests on (``TaskType.coverage``). The rule, here and only here, used by every
board (its order, its ranks, its marks and its note), the overall ranking (a mean
over test sets rests on the cells of each: ``across``) and the statistics worker's
choice of runs (``selection.select``):

- a run whose mean rests on every cell is complete and unmarked;
- a mean over fewer cells is marked ("1 of 3 word classes judged") and ranks after
  every mean over more cells, whatever its value (then by value as usual): a
  perfect score on one class is not a tie with a perfect score on three;
- it takes no rank band: the bands compare means over the same cells."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from evalhub.competitions.models import Evaluation, Submission, TestSet

#: run -> (cells with a value, cells)
Coverage = Mapping[int, tuple[int, int]]


def coverage_of(test_set: TestSet, subs: Mapping[int, Submission]) -> Coverage:
    """Each of ``subs``' ``(cells with a value, cells)`` on ``test_set``, read
    from its evaluation's payload by its task type; empty for a task type without
    a ``coverage_unit`` (no query)."""
    task_type = test_set.phase.task.type
    if task_type.coverage_unit is None or not subs:
        return {}
    out: dict[int, tuple[int, int]] = {}
    for sub_id, payload in Evaluation.objects.filter(
        test_set=test_set, submission_id__in=list(subs)
    ).values_list("submission_id", "payload"):
        found = task_type.coverage(payload or {})
        if found is not None and found[1] > 0:
            out[sub_id] = found
    return out


def across(test_sets: Sequence[TestSet], subs: Mapping[int, Submission]) -> Coverage:
    """Each of ``subs``' cells over ``test_sets`` together (cells with a value and
    cells, added up over the test sets): the cells a mean over those test sets rests
    on, for the overall ranking. A run is absent where no test set says (complete)."""
    out: dict[int, tuple[int, int]] = {}
    for test_set in test_sets:
        for pk, (have, cells) in coverage_of(test_set, subs).items():
            before = out.get(pk, (0, 0))
            out[pk] = (before[0] + have, before[1] + cells)
    return out


def share(coverage: Coverage, pk: int) -> Fraction:
    """The share of cells ``pk``'s mean rests on (1: complete or not said); the
    first part of every board's order, compared exactly."""
    found = coverage.get(pk)
    return Fraction(1) if found is None else Fraction(found[0], found[1])


def complete(coverage: Coverage, pk: int) -> bool:
    """Whether ``pk``'s mean rests on every cell (or its task type has no cells)."""
    found = coverage.get(pk)
    return found is None or found[0] >= found[1]


def banded(test_set: TestSet, runs: Sequence[int]) -> list[int]:
    """The indices of ``runs`` a rank band may hold: the complete means only (the
    statistics worker's bands, as the board's rows)."""
    coverage = coverage_of(test_set, dict.fromkeys(runs))  # type: ignore[arg-type]
    return [i for i, pk in enumerate(runs) if complete(coverage, pk)]


def mark(test_set: TestSet, coverage: Coverage, pk: int) -> str:
    """``"1 of 3 word classes judged"`` for an incomplete mean; "" otherwise."""
    unit = test_set.phase.task.type.coverage_unit
    found = coverage.get(pk)
    if unit is None or found is None or found[0] >= found[1]:
        return ""
    return f"{found[0]} of {unit.count(found[1])} judged"


def rule(test_set: TestSet) -> str:
    """The sentence a board shows when one of its rows is marked."""
    unit = test_set.phase.task.type.coverage_unit
    if unit is None:
        return ""
    return (
        f"A mean over fewer {unit.plural} than the others (marked “k of n "
        f"{unit.plural} judged”) ranks after every mean over more, whatever its "
        "value, and takes no rank band."
    )
