"""Scoring runs for the rankings tests: the platform's parsers, scorer and
``store_evaluation``, without rendering plots (the slow part, tested elsewhere)."""

from __future__ import annotations

from evalhub.competitions.models import Submission
from evalhub.competitions.services import scoring, submit, taskdata


def scored(phase, user, data: bytes, method: str) -> Submission:  # noqa: ANN001
    sub = submit.submit_run(
        phase=phase, user=user, filename="run.tsv", data=data, method_name=method
    )
    return rescored(sub)


def rescored(sub: Submission) -> Submission:
    """Score a queued run (a new one, or one queued again for rescoring) now."""
    phase = sub.phase
    with sub.file.open("rb") as handle:
        data = handle.read()
    assert Submission.claim(sub.pk)
    test_sets = list(phase.test_sets.all())
    contexts = [taskdata.load_inputs(ts) for ts in test_sets]
    task_type, settings = contexts[0].task_type, contexts[0].settings
    runs = task_type.parse_phase_run(
        data, "run.tsv", [c.inputs for c in contexts], settings
    )
    for ts, ctx, run in zip(test_sets, contexts, runs, strict=True):
        report = task_type.score(run, taskdata.load_gold(ts), ctx.inputs, settings)
        scoring.store_evaluation(submission=sub, test_set=ts, report=report, plots=())
    assert Submission.mark_scored(sub.pk, scorer_version=task_type.version, warnings=[])
    sub.refresh_from_db()
    return sub
