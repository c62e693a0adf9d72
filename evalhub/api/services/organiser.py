"""What the organiser API answers: every run of a task with every score the
organiser may see (the one rule, ``boards/visibility.visible``: organisers see all
at once), and a test-data draft's preview as the console's page shows it."""

from __future__ import annotations

from django.db.models import Prefetch
from django.urls import reverse

from evalhub.competitions.models import (
    Phase,
    Score,
    SharedTask,
    Submission,
    TestSet,
    Track,
)
from evalhub.competitions.services import test_data
from evalhub.competitions.services.boards import visibility
from evalhub.competitions.services.data import drafts


def task_runs(
    *,
    task: SharedTask,
    user: object,
    phase: Phase | None = None,
    status: str = "",
    track: Track | None = None,
) -> dict[str, object]:
    """The task's runs, oldest first (``phase``, ``status``, ``track`` narrow them),
    each with its scores on every test set of its phase this viewer may see."""
    runs = (
        Submission.objects.filter(phase__task=task)
        .select_related("phase", "team", "track")
        .prefetch_related(
            Prefetch("scores", queryset=Score.objects.order_by("test_set_id", "metric"))
        )
        .order_by("created_at", "pk")
    )
    if phase is not None:
        runs = runs.filter(phase=phase)
    if status:
        runs = runs.filter(status=status)
    if track is not None:
        runs = runs.filter(track=track)
    runs = list(runs)
    test_sets = list(
        TestSet.objects.filter(phase__task=task)
        .select_related("phase__task")
        .order_by("phase__order", "order", "pk")
    )
    shown = {
        ts.pk: visibility.visible(
            viewer=user,
            test_set=ts,
            runs=[r for r in runs if r.phase_id == ts.phase_id],
        )
        for ts in test_sets
    }
    slugs = {ts.pk: ts.slug for ts in test_sets}
    return {
        "task": task.slug,
        "primary_metric": task.type.primary_metric,
        "test_sets": [
            {
                "phase": ts.phase.slug,
                "slug": ts.slug,
                "name": ts.name,
                "visibility": ts.visibility,
                "revealed": ts.revealed,
                "gold_version": ts.gold_version,
            }
            for ts in test_sets
        ],
        "runs": [_run(sub, task=task, shown=shown, slugs=slugs) for sub in runs],
    }


def _run(
    sub: Submission,
    *,
    task: SharedTask,
    shown: dict[int, set[int]],
    slugs: dict[int, str],
) -> dict[str, object]:
    scores: dict[str, dict[str, float | None]] = {}
    if sub.status == Submission.Status.SCORED:
        for score in sub.scores.all():
            if sub.pk in shown.get(score.test_set_id, ()):
                scores.setdefault(slugs[score.test_set_id], {})[score.metric] = (
                    score.value
                )
    return {
        "id": sub.pk,
        "phase": sub.phase.slug,
        "track": sub.track.slug if sub.track_id else None,
        "team": sub.team.name,
        "method_name": sub.method_name,
        "status": sub.status,
        "done": sub.is_terminal,
        "hidden": sub.hidden,
        "final_run": sub.final_selected,
        "baseline": sub.is_baseline,
        "failure_category": sub.failure_category,
        "errors": sub.failure_message.splitlines(),
        "warnings": list(sub.warnings),
        "file_name": sub.original_name,
        "size": sub.size,
        "sha256": sub.sha256,
        "scores": scores,
        "created_at": sub.created_at,
        "finished_at": sub.finished_at,
        "url": sub.get_absolute_url(),
        "file_url": (
            reverse("api:api-v1:task-run-file", args=[task.slug, sub.pk])
            if sub.file
            else None
        ),
    }


def stage_test_data(
    *, test_set: TestSet, user: object, uploads: list[test_data.Upload]
) -> dict[str, object]:
    """Check ``uploads`` and keep them as the user's draft (``test_data.stage``; raises
    its UploadRejected); the draft's preview."""
    draft = test_data.stage(test_set=test_set, user=user, uploads=uploads)
    return _preview(test_set, test_data.preview(test_set=test_set, draft=draft))


def test_data_draft(
    *, test_set: TestSet, user: object, token: str
) -> dict[str, object]:
    """The preview of the user's draft ``token`` (DraftGone: no such draft)."""
    draft = drafts.load(
        test_set_id=test_set.pk,
        user_id=user.pk,  # type: ignore[attr-defined]
        token=token,
    )
    return _preview(test_set, test_data.preview(test_set=test_set, draft=draft))


def confirm_test_data(
    *, test_set: TestSet, user: object, token: str
) -> dict[str, object]:
    """Store the user's draft (``test_data.confirm``: DraftGone, DraftStale)."""
    stored = test_data.confirm(test_set=test_set, user=user, token=token)
    test_set.refresh_from_db(fields=["gold_version"])
    return {
        "files": stored.files,
        "rescored": stored.rescored,
        "gold_version": test_set.gold_version,
    }


def _preview(test_set: TestSet, preview: test_data.Preview) -> dict[str, object]:
    """The console's preview page as data: files and what they replace, the counts
    before and after, examples and warnings of the new gold, the runs scored again."""
    draft = preview.draft
    phase = test_set.phase
    return {
        "token": draft.token,
        "task": phase.task.slug,
        "phase": phase.slug,
        "test_set": test_set.slug,
        "gold_version": test_set.gold_version,
        "files": [
            {
                "role": c.role,
                "label": c.label,
                "private": c.private,
                "name": c.name,
                "size": c.size,
                "replaces": c.old_name,
                "replaces_size": c.old_size,
            }
            for c in preview.changes
        ],
        "counts": [
            {"label": label, "before": before, "after": after}
            for label, before, after in preview.counts
        ],
        "has_gold": draft.after is not None,
        "examples": list(draft.after.examples) if draft.after else [],
        "warnings": list(draft.after.warnings) if draft.after else [],
        "changes_gold": preview.changes_gold,
        "rescored": [
            {
                "id": run.pk,
                "team": run.team.name,
                "method_name": run.method_name,
                "hidden": run.hidden,
                "baseline": run.is_baseline,
            }
            for run in preview.rescored
        ],
        "url": reverse(
            "api:api-v1:test-data-draft-detail",
            args=[phase.task.slug, phase.slug, test_set.slug, draft.token],
        ),
    }
