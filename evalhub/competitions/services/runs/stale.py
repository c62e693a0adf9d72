"""One definition of "the data a score rests on", and so of a stale score: every
file a task type's scorer reads, inputs and gold, of every test set the run is
scored on (``taskdata.scorable``). Any change of any of them (stored, replaced,
deleted, through the console, the API, a bundle, the admin) bumps the test set's
data version (``TestSet.gold_version``, named when only gold was versioned) in
``lifecycle.data_changed``, unless the test set could score runs neither before
nor after it (being set up: no score rests on it). From it:

- ``data_versions``: what a worker notes before it reads a file, and what
  ``lifecycle.finish`` compares under the phase's lock before it keeps a score;
- ``affected_by``: the runs a change scores again, which ``data_changed`` queues and
  the organiser's preview of new files lists;
- ``current`` and ``outdated_runs``: the rescoring page's "outdated" (scores from
  another data version or scorer version, or none on a scorable test set).
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Q, QuerySet

from evalhub.competitions.models import Evaluation, SharedTask, Submission, TestSet
from evalhub.competitions.services.data import taskdata

S = Submission.Status

#: Failed runs that new gold may fix (a format error is the run file's own, unless
#: the inputs it is read against change).
_RETRIABLE_FAILED = ~Q(failure_category=Submission.Failure.FORMAT)


def versions(test_sets: Iterable[TestSet]) -> dict[int, int]:
    """Each scorable test set among ``test_sets`` (with their files) -> its data
    version. A test set being set up is not in it: it disturbs no run."""
    return {ts.pk: ts.gold_version for ts in taskdata.scorable(test_sets)}


def data_versions(phase_id: int) -> dict[int, int]:
    """``versions`` of the phase's test sets as they are now."""
    return versions(
        TestSet.objects.filter(phase_id=phase_id)
        .prefetch_related("files")
        .select_related("phase__task")
    )


def affected(phase_id: int, *, inputs: bool = False) -> QuerySet[Submission]:
    """The runs a change of the phase's test data scores again: those scored, and
    those that failed for a reason new data may fix (an input change also the
    format errors: a run is read against the inputs). A run queued or being scored
    is not among them: it reads the new data, or ``finish`` catches it."""
    failed = Q(status=S.FAILED) if inputs else Q(_RETRIABLE_FAILED, status=S.FAILED)
    return Submission.objects.filter(phase_id=phase_id).filter(
        Q(status=S.SCORED) | failed
    )


def affected_by(
    test_set: TestSet, *, before: Iterable[str], after: Iterable[str], inputs: bool
) -> QuerySet[Submission]:
    """The runs that a change of ``test_set``'s files (roles ``before`` ->
    ``after``; ``inputs``: a public input among them) scores again: ``affected``,
    unless the test set is scorable neither before nor after (being set up)."""
    if not (taskdata.ready(test_set, before) or taskdata.ready(test_set, after)):
        return Submission.objects.none()
    return affected(test_set.phase_id, inputs=inputs)


def current(evaluation: Evaluation, *, test_set: TestSet, scorer_version: str) -> bool:
    """Whether a stored evaluation rests on the test set's current data and the
    task type's current scorer."""
    return (
        evaluation.gold_version == test_set.gold_version
        and evaluation.scorer_version == scorer_version
    )


def outdated_runs(*, task: SharedTask) -> list[int]:
    """Scored or failed runs with an evaluation that is not ``current``, or with
    none on a scorable test set of their phase (it was completed after they were
    scored); failed runs are included: new data may fix them."""
    version = task.type.version
    ids: set[int] = set()
    test_sets = list(
        TestSet.objects.filter(phase__task=task)
        .prefetch_related("files")
        .select_related("phase__task")
    )
    ready = {ts.pk for ts in taskdata.scorable(test_sets)}
    for test_set in test_sets:
        ids.update(
            Evaluation.objects.filter(test_set=test_set)
            .filter(~Q(scorer_version=version) | ~Q(gold_version=test_set.gold_version))
            .values_list("submission_id", flat=True)
        )
        if test_set.pk in ready:
            ids.update(
                Submission.objects.filter(phase_id=test_set.phase_id, status=S.SCORED)
                .exclude(evaluations__test_set=test_set)
                .values_list("pk", flat=True)
            )
    return sorted(
        Submission.objects.filter(
            pk__in=ids, status__in=[S.SCORED, S.FAILED]
        ).values_list("pk", flat=True)
    )
