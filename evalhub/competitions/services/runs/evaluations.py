"""Writing a run's results: the one module that writes ``Evaluation``, ``Score``,
``ScoreSnapshot`` and ``Artefact`` rows, and only ``runs/lifecycle.py`` calls it
(``tests/competitions/test_one_score_writer.py`` proves both), inside the
transaction that holds the phase's lock and has checked that the data the scores
rest on is current.

A run's own figures are drawn after its score, by a job of their own
(``runs/run_figures.py``): the scoring job stores the evaluation with its figures
``pending`` under a new ``figures_key`` and the job is sent after the commit; the
job claims the drawing (pending -> drawing, compare-and-set on the key) and stores
the figures only if the key is still the one it claimed (a rescore or the sweeper
changes it meanwhile: that job's figures are dropped)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import datetime

from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from evalhub.competitions import queue
from evalhub.competitions.finite import check_number
from evalhub.competitions.models import (
    Artefact,
    Evaluation,
    Score,
    ScoreSnapshot,
    Submission,
    TestSet,
)
from tasks.base import Plot, ScoreReport

F = Evaluation.Figures


def store_evaluation(
    *,
    submission: Submission,
    test_set: TestSet,
    report: ScoreReport,
    plots: tuple[Plot, ...] | None,
) -> Evaluation:
    """Write (or overwrite) one run's results on one test set: the report, a Score row
    per metric and the plot files (``plots`` None: drawn by their own job, sent once
    the transaction commits). Idempotent."""
    version = submission.phase.task.type.version
    previous = Evaluation.objects.filter(
        submission=submission, test_set=test_set
    ).first()
    if previous is not None and (
        previous.scorer_version != version
        or previous.gold_version != test_set.gold_version
    ):
        _snapshot(previous)
    evaluation, _ = Evaluation.objects.update_or_create(
        submission=submission,
        test_set=test_set,
        defaults={
            "scorer_version": version,
            "gold_version": test_set.gold_version,
            "payload": dict(report.payload),
            "curves": [c.to_json() for c in report.curves],
            "warnings": list(report.warnings),
            "detail": dict(report.detail),
            "figures": F.DRAWN if plots is not None else F.PENDING,
            "figures_key": "" if plots is not None else uuid.uuid4().hex,
            "figures_at": timezone.now(),
        },
    )
    # One statement for every metric (an update or create each was two queries
    # per metric); the check ``Score.save`` makes, made here.
    scores = [
        Score(
            submission=submission,
            test_set=test_set,
            metric=key,
            value=check_number(
                None if value is None else float(value), f"{key} of run {submission.pk}"
            ),
            scorer_version=version,
        )
        for key, value in report.metrics.items()
    ]
    Score.objects.bulk_create(
        scores,
        update_conflicts=True,
        unique_fields=["submission", "test_set", "metric"],
        update_fields=["value", "scorer_version"],
    )
    if plots is None:
        pk, key = evaluation.pk, evaluation.figures_key
        transaction.on_commit(
            lambda: queue.enqueue_run_figures(pk, key),
            robust=True,  # the score is stored; the sweeper re-sends a lost job
        )
    else:
        _store_plots(evaluation, plots)
    return evaluation


def claim_figures(evaluation_id: int, key: str) -> Evaluation | None:
    """pending -> drawing for the figures named ``key``; exactly one caller wins
    and gets the evaluation (None: drawn, being drawn, superseded or withdrawn)."""
    if not Evaluation.objects.filter(
        pk=evaluation_id, figures=F.PENDING, figures_key=key
    ).update(figures=F.DRAWING, figures_at=timezone.now()):
        return None
    return (
        Evaluation.objects.select_related("submission__phase__task", "test_set")
        .filter(pk=evaluation_id)
        .first()
    )


def store_figures(evaluation_id: int, key: str, plots: tuple[Plot, ...]) -> bool:
    """Store the figures a claim of ``key`` drew (drawing -> drawn), unless the
    evaluation was scored again, taken over or withdrawn meanwhile (the row lock
    orders this with a rescore's write). Returns whether they were stored."""
    with transaction.atomic():
        evaluation = (
            Evaluation.objects.select_for_update()
            .filter(pk=evaluation_id, figures=F.DRAWING, figures_key=key)
            .first()
        )
        if evaluation is None:
            return False
        _store_plots(evaluation, plots)
        Evaluation.objects.filter(pk=evaluation_id).update(
            figures=F.DRAWN, figures_at=timezone.now()
        )
    return True


def lost_figures(
    *, now: datetime, pending_before: datetime, drawing_before: datetime
) -> list[tuple[int, str]]:
    """The figure jobs to send again (the sweeper): figures pending since before
    ``pending_before`` (their job lost with the broker or the worker), and drawings
    started before ``drawing_before`` (their worker lost), which get a new key so the
    lost worker, should it wake up, stores nothing. Compare-and-set on what was read."""
    again: list[tuple[int, str]] = []
    stale = Evaluation.objects.filter(
        Q(figures=F.PENDING, figures_at__lt=pending_before)
        | Q(figures=F.PENDING, figures_at__isnull=True)
        | Q(figures=F.DRAWING, figures_at__lt=drawing_before)
    )
    for pk, state, key, at in stale.values_list(
        "pk", "figures", "figures_key", "figures_at"
    ):
        new = key if state == F.PENDING else uuid.uuid4().hex
        if Evaluation.objects.filter(
            pk=pk, figures=state, figures_key=key, figures_at=at
        ).update(figures=F.PENDING, figures_key=new, figures_at=now):
            again.append((pk, new))
    return again


def _store_plots(evaluation: Evaluation, plots: tuple[Plot, ...]) -> None:
    keep = set()
    for plot in plots:
        keep.add(plot.key)
        artefact = Artefact.objects.filter(evaluation=evaluation, key=plot.key).first()
        if artefact is None:
            artefact = Artefact(evaluation=evaluation, key=plot.key)
        else:
            _delete_files(artefact)
        artefact.title = plot.title
        artefact.svg.save(f"{plot.key}.svg", ContentFile(plot.svg), save=False)
        artefact.png.save(f"{plot.key}.png", ContentFile(plot.png), save=False)
        if plot.svg_narrow:
            artefact.svg_narrow.save(
                f"{plot.key}.narrow.svg", ContentFile(plot.svg_narrow), save=False
            )
        artefact.save()
    for stale in evaluation.artefacts.exclude(key__in=keep):
        _delete_files(stale)
        stale.delete()


def withdraw(evaluations: QuerySet[Evaluation]) -> list[int]:
    """Remove evaluations whose test set can no longer score the run (its gold or
    an input is gone): their scores are kept as snapshots (the rescoring page's
    "before"), the rows, scores and figures go. Returns the test sets touched."""
    touched: set[int] = set()
    for evaluation in evaluations.select_related("test_set"):
        _snapshot(evaluation)
        Score.objects.filter(
            submission_id=evaluation.submission_id, test_set_id=evaluation.test_set_id
        ).delete()
        files = [
            (f.storage, f.name)
            for artefact in evaluation.artefacts.all()
            for f in (artefact.svg, artefact.png, artefact.svg_narrow)
            if f.name
        ]
        evaluation.delete()
        transaction.on_commit(lambda files=files: _delete_names(files))
        touched.add(evaluation.test_set_id)
    return sorted(touched)


def _snapshot(previous: Evaluation) -> None:
    """Keep the scores about to be overwritten or removed, with the versions they
    came from (a plain retry of the same versions keeps nothing new)."""
    metrics = dict(
        Score.objects.filter(
            submission_id=previous.submission_id, test_set_id=previous.test_set_id
        ).values_list("metric", "value")
    )
    ScoreSnapshot.objects.get_or_create(
        submission_id=previous.submission_id,
        test_set_id=previous.test_set_id,
        scorer_version=previous.scorer_version,
        gold_version=previous.gold_version,
        defaults={"metrics": metrics, "scored_at": previous.created_at},
    )


def _delete_files(artefact: Artefact) -> None:
    artefact.svg.delete(save=False)
    artefact.png.delete(save=False)
    artefact.svg_narrow.delete(save=False)


def _delete_names(files: Iterable[tuple[object, str]]) -> None:
    for storage, name in files:
        storage.delete(name)  # type: ignore[attr-defined]
