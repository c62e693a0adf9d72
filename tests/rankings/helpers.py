"""Scoring runs for the rankings tests through the production path: the submit
service, then the scoring job (``scoring.score_submission``), plots included."""

from __future__ import annotations

from evalhub.competitions.models import Submission
from evalhub.competitions.services.runs import scoring, submit


def scored(phase, user, data: bytes, method: str) -> Submission:  # noqa: ANN001
    sub = submit.submit_run(
        phase=phase, user=user, filename="run.tsv", data=data, method_name=method
    )
    return rescored(sub)


def rescored(sub: Submission) -> Submission:
    """Score a queued run (a new one, or one queued again for rescoring) now."""
    assert scoring.score_submission(submission_id=sub.pk) == "scored"
    sub.refresh_from_db()
    return sub
