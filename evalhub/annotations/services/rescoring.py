"""Re-scoring a test set's scored runs with the stored judgements.

The platform scores an mt_lexicon_probe run with automatic tags only; this applies
the annotators' judgements (and the judgement memory built from them) with
``score_judged``; the scores are written by the run's lifecycle
(``lifecycle.rejudged``), under the phase's lock that scoring and data changes take,
and only for runs still scored on the test set's current data. Idempotent: a run
whose stored report already equals the new one is left alone, so running it twice
writes nothing the second time. Concurrent jobs run one after the other (the lock)
and the last one reads the newest judgements.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from django.db import transaction

from evalhub.annotations.services import judgements, systems
from evalhub.competitions.models import Evaluation, Score, Submission, TestSet
from evalhub.competitions.services.boards import boardcache
from evalhub.competitions.services.runs import lifecycle
from tasks.base import ScoreReport
from tasks.mt_lexicon_probe.tags import JudgementMemory, normalise_translation


def rescore_test_set(*, test_set_id: int) -> list[int]:
    """Re-score every scored run of the test set; returns the runs whose scores
    changed."""
    changed = lifecycle.rejudged(test_set_id=test_set_id, score=_judged)
    if changed:
        transaction.on_commit(lambda: _after_rescore(test_set_id))
    return changed


def _judged(test_set: TestSet) -> Iterator[tuple[Submission, ScoreReport, tuple]]:
    """Each scored run's report with the judgements, where it changed (read under
    the phase's lock that ``lifecycle.rejudged`` holds)."""
    if test_set.phase.task.task_type != systems.SLUG:
        return
    workspace = systems.load(test_set)
    task_type, settings = workspace.context.task_type, workspace.context.settings
    current = judgements.current_tags(test_set=test_set)
    memory = JudgementMemory(entries=current)
    probes = workspace.inputs.probes
    for system in workspace.systems:
        tags = {}
        for probe, text in zip(probes, system.run.translations, strict=True):
            tag = current.get((probe.id, normalise_translation(text)))
            if tag is not None:
                tags[probe.id] = tag
        report = task_type.score_judged(  # type: ignore[attr-defined]
            system.run,
            workspace.gold,
            workspace.inputs,
            settings,
            tags,
            memory=memory,
        )
        if not _unchanged(system.submission.pk, test_set, report):
            yield system.submission, report, task_type.plots(report, settings)


def _after_rescore(test_set_id: int) -> None:
    from evalhub.competitions.services.boards import refreshes

    boardcache.invalidate(test_set_id=test_set_id)
    refreshes.request(kind=refreshes.ANALYSES, test_set_id=test_set_id)


def _unchanged(submission_id: int, test_set: TestSet, report: ScoreReport) -> bool:
    evaluation = Evaluation.objects.filter(
        submission_id=submission_id, test_set=test_set
    ).first()
    if evaluation is None:
        return False
    if evaluation.payload != _json(report.payload) or evaluation.detail != _json(
        report.detail
    ):
        return False
    stored = dict(
        Score.objects.filter(
            submission_id=submission_id, test_set=test_set
        ).values_list("metric", "value")
    )
    return stored == {
        k: None if v is None else float(v) for k, v in report.metrics.items()
    }


def _json(value: object) -> object:
    return json.loads(json.dumps(value))
