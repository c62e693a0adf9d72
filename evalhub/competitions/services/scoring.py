"""Scoring a submission on every test set of its phase, and the sweeper.

Idempotent: a worker must first win ``Submission.claim`` (queued -> scoring), results
are written with ``update_or_create``, and a job for a row in a final state is a no-op.
"""

from __future__ import annotations

import logging
import traceback
from datetime import timedelta

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from evalhub.competitions import signals
from evalhub.competitions.models import Artefact, Evaluation, Score, Submission, TestSet
from evalhub.competitions.services import leaderboard, taskdata
from tasks.base import FormatError, Plot, ScoreReport

log = logging.getLogger(__name__)

PUBLIC_SCORER_ERROR = (
    "The scorer failed on this run (internal error). The organisers can see the "
    "failure on their dashboard and rescore the run once it is fixed."
)


def score_submission(*, submission_id: int) -> str:
    """Score one run. Returns what happened (for logs and tests)."""
    if not Submission.claim(submission_id):
        return "skipped"
    submission = Submission.objects.select_related("phase__task").get(pk=submission_id)
    try:
        results = _score_all(submission)
    except FormatError as exc:
        Submission.mark_failed(
            submission_id,
            category=Submission.Failure.FORMAT,
            message="\n".join(str(p) for p in exc.problems),
        )
        return "failed"
    except SoftTimeLimitExceeded:
        Submission.mark_failed(
            submission_id,
            category=Submission.Failure.TIMEOUT,
            message=f"Scoring took longer than {settings.SCORING_SOFT_TIME_LIMIT} s and was stopped.",
        )
        return "failed"
    except taskdata.MissingFiles as exc:
        Submission.mark_failed(
            submission_id, category=Submission.Failure.INFRASTRUCTURE, message=str(exc)
        )
        return "failed"
    except MemoryError:
        Submission.mark_failed(
            submission_id,
            category=Submission.Failure.SCORER,
            message="Scoring ran out of memory on this run.",
        )
        return "failed"
    except Exception as exc:  # noqa: BLE001 - any scorer bug must end in a final state
        # The exception text may quote gold items: log its type and frames only.
        frames = "".join(traceback.format_tb(exc.__traceback__))
        log.error(
            "scorer error on submission %s: %s\n%s",
            submission_id,
            type(exc).__name__,
            frames,
        )
        Submission.mark_failed(
            submission_id,
            category=Submission.Failure.SCORER,
            message=PUBLIC_SCORER_ERROR,
        )
        return "failed"

    warnings: list[str] = []
    with transaction.atomic():
        for test_set, report, plots in results:
            store_evaluation(
                submission=submission, test_set=test_set, report=report, plots=plots
            )
            warnings.extend(w for w in report.warnings if w not in warnings)
        done = Submission.mark_scored(
            submission_id,
            scorer_version=submission.phase.task.type.version,
            warnings=warnings,
        )
        if done:
            for test_set, _, _ in results:
                transaction.on_commit(_after_scored(test_set.pk))
            ids = [ts.pk for ts, _, _ in results]
            transaction.on_commit(
                lambda: signals.submission_scored.send(
                    sender=Submission, submission_id=submission_id, test_set_ids=ids
                )
            )
    return "scored" if done else "skipped"


def _after_scored(test_set_id: int):  # noqa: ANN202
    def run() -> None:
        from evalhub.competitions import jobs

        leaderboard.invalidate(test_set_id=test_set_id)
        jobs.refresh_analyses.delay(test_set_id)

    return run


def _score_all(
    submission: Submission,
) -> list[tuple[TestSet, ScoreReport, tuple[Plot, ...]]]:
    with submission.file.open("rb") as handle:
        data = handle.read()
    test_sets = list(submission.phase.test_sets.all())
    contexts = [taskdata.load_inputs(ts) for ts in test_sets]
    if not contexts:
        return []
    task_type, settings = contexts[0].task_type, contexts[0].settings
    runs = task_type.parse_phase_run(
        data, submission.original_name, [c.inputs for c in contexts], settings
    )
    results = []
    for test_set, ctx, run in zip(test_sets, contexts, runs, strict=True):
        gold = taskdata.load_gold(test_set)
        report = task_type.score(run, gold, ctx.inputs, settings)
        plots = task_type.plots(report, settings)
        results.append((test_set, report, plots))
    return results


def store_evaluation(
    *,
    submission: Submission,
    test_set: TestSet,
    report: ScoreReport,
    plots: tuple[Plot, ...],
) -> Evaluation:
    """Write (or overwrite) one run's results on one test set: the report, a Score row
    per metric and the plot files. Idempotent."""
    version = submission.phase.task.type.version
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
        },
    )
    for key, value in report.metrics.items():
        Score.objects.update_or_create(
            submission=submission,
            test_set=test_set,
            metric=key,
            defaults={
                "value": None if value is None else float(value),
                "scorer_version": version,
            },
        )
    keep = set()
    for plot in plots:
        keep.add(plot.key)
        artefact = Artefact.objects.filter(evaluation=evaluation, key=plot.key).first()
        if artefact is None:
            artefact = Artefact(evaluation=evaluation, key=plot.key)
        else:
            artefact.svg.delete(save=False)
            artefact.png.delete(save=False)
        artefact.title = plot.title
        artefact.svg.save(f"{plot.key}.svg", ContentFile(plot.svg), save=False)
        artefact.png.save(f"{plot.key}.png", ContentFile(plot.png), save=False)
        artefact.save()
    for stale in evaluation.artefacts.exclude(key__in=keep):
        stale.svg.delete(save=False)
        stale.png.delete(save=False)
        stale.delete()
    return evaluation


def rescore(*, submission_ids: list[int]) -> int:
    """Put final runs back in the queue (e.g. after gold or scorer changes)."""
    from evalhub.competitions import jobs

    count = 0
    for pk in submission_ids:
        updated = Submission.objects.filter(
            pk=pk, status__in=[Submission.Status.SCORED, Submission.Status.FAILED]
        ).update(
            status=Submission.Status.QUEUED,
            attempts=0,
            enqueued_at=timezone.now(),
            finished_at=None,
        )
        if updated:
            count += 1
            transaction.on_commit(lambda pk=pk: jobs.score_submission.delay(pk))
    return count


def sweep(*, now=None) -> dict[str, int]:  # noqa: ANN001
    """Finish or retry stuck rows. Rows in ``scoring`` past the hard time limit were
    lost with their worker: re-queue them (or fail after the last attempt). Rows
    ``queued`` whose message may have been lost with the broker are enqueued again;
    the atomic claim makes duplicates harmless."""
    from evalhub.competitions import jobs

    now = now or timezone.now()
    counts = {"requeued": 0, "failed": 0, "reenqueued": 0}
    stuck_before = now - timedelta(seconds=settings.SCORING_TIME_LIMIT + 30)
    for sub in Submission.objects.filter(
        status=Submission.Status.SCORING, started_at__lt=stuck_before
    ):
        if sub.attempts >= settings.SCORING_MAX_ATTEMPTS:
            if Submission.mark_failed(
                sub.pk,
                category=Submission.Failure.INFRASTRUCTURE,
                message=f"Scoring did not finish after {sub.attempts} attempts.",
            ):
                counts["failed"] += 1
        elif Submission.requeue(sub.pk, from_state=Submission.Status.SCORING):
            counts["requeued"] += 1
            Submission.objects.filter(pk=sub.pk).update(enqueued_at=now)
            jobs.score_submission.delay(sub.pk)
    lost_before = now - timedelta(seconds=settings.QUEUED_REENQUEUE_AFTER)
    lost = Submission.objects.filter(
        Q(enqueued_at__lt=lost_before) | Q(enqueued_at__isnull=True),
        status=Submission.Status.QUEUED,
    )
    for pk in lost.values_list("pk", flat=True):
        Submission.objects.filter(pk=pk).update(enqueued_at=now)
        jobs.score_submission.delay(pk)
        counts["reenqueued"] += 1
    return counts
