"""What the API returns, with the leak rules of ``competitions.services.access``
applied: the same visibility as the pages, never more."""

from __future__ import annotations

from django.db.models import Q
from django.urls import reverse

from evalhub.competitions.models import Phase, SharedTask, Submission
from evalhub.competitions.services import roles
from evalhub.competitions.services.boards import access, ranking
from evalhub.competitions.services.runs import submit


def visible_tasks(*, user: object) -> list[SharedTask]:
    organised = (
        user.organised_tasks.all()  # type: ignore[attr-defined]
        if getattr(user, "is_authenticated", False)
        else SharedTask.objects.none()
    )
    listed = SharedTask.objects.filter(
        Q(state=SharedTask.State.PUBLISHED) | Q(pk__in=organised)
    ).distinct()
    # A token narrower than its account does not list the other drafts it organises.
    return [
        t
        for t in listed
        if t.state == SharedTask.State.PUBLISHED or roles.is_organiser(user, t)
    ]


def task_summary(task: SharedTask) -> dict[str, object]:
    return {
        "slug": task.slug,
        "title": task.title,
        "task_type": task.task_type,
        "state": task.state,
        "url": task.get_absolute_url(),
    }


def task_detail(*, task: SharedTask, user: object) -> dict[str, object]:
    organiser = roles.is_organiser(user, task)
    task_type = task.type
    phases = []
    for phase in task.phases.prefetch_related("test_sets__files", "tracks"):
        phases.append(
            {
                "slug": phase.slug,
                "name": phase.name,
                "opens_at": phase.opens_at,
                "closes_at": phase.closes_at,
                "is_open": phase.is_open(),
                "daily_limit": phase.daily_limit,
                "total_limit": phase.total_limit,
                "limits_per_track": phase.limits_per_track,
                "after_campaign": phase.after_campaign,
                "ranking_metric": ranking.of(phase).metric,
                "tracks": [
                    {"slug": t.slug, "name": t.name, "description": t.description}
                    for t in phase.tracks.all()
                ],
                "test_sets": [
                    {
                        "slug": ts.slug,
                        "name": ts.name,
                        "visibility": ts.visibility,
                        "scores_public": ts.scores_public,
                        "files": [
                            {
                                "role": f.role,
                                "name": f.original_name,
                                "sha256": f.sha256,
                                "url": reverse(
                                    "competitions:testset-file", args=[ts.pk, f.role]
                                ),
                            }
                            for f in ts.files.all()
                            if not f.private or organiser or task.gold_released
                        ],
                    }
                    for ts in phase.test_sets.all()
                ],
            }
        )
    return {
        **task_summary(task),
        "description": task.description,
        "primary_metric": task_type.primary_metric,
        "metrics": [
            {"key": m.key, "label": m.label, "higher_is_better": m.higher_is_better}
            for m in task_type.metrics
        ],
        "phases": phases,
    }


def run_status(*, submission: Submission, user: object) -> dict[str, object]:
    """Status, and scores on the test sets this user may see (private test sets
    until revealed, and the Ladder's unreleased runs: organisers only); failure
    messages and warnings only for the run's team and the organisers."""
    private_ok = access.can_see_run_private(user, submission)
    scores: dict[str, dict[str, float | None]] = {}
    if submission.status == Submission.Status.SCORED:
        shown: dict[int, bool] = {}
        for score in submission.scores.select_related("test_set__phase__task").order_by(
            "test_set_id", "metric"
        ):
            ts = score.test_set
            if ts.pk not in shown:
                shown[ts.pk] = access.can_see_run_scores(user, submission, ts)
            if shown[ts.pk]:
                scores.setdefault(ts.slug, {})[score.metric] = score.value
    return {
        "id": submission.pk,
        "task": submission.phase.task.slug,
        "phase": submission.phase.slug,
        "team": submission.team.name,
        "method_name": submission.method_name,
        "status": submission.status,
        "done": submission.is_terminal,
        "hidden": submission.hidden,
        "final_run": submission.final_selected if private_ok else None,
        "track": submission.track.slug if submission.track_id else None,
        "failure_category": submission.failure_category,
        "errors": submission.failure_message.splitlines() if private_ok else [],
        "warnings": list(submission.warnings) if private_ok else [],
        "scores": scores,
        "created_at": submission.created_at,
        "finished_at": submission.finished_at,
        "url": submission.get_absolute_url(),
    }


def team_runs(*, phase: Phase, user: object) -> list[dict[str, object]]:
    """Every run of the user's teams in the phase, newest first."""
    if not getattr(user, "is_authenticated", False):
        return []
    runs = Submission.objects.filter(phase=phase, team__members=user).select_related(
        "phase__task", "team", "track"
    )
    return [run_status(submission=s, user=user) for s in runs]


def allowance(*, phase: Phase, user: object) -> dict[str, object] | None:
    team = submit.approved_team(phase=phase, user=user)
    if team is None:
        return None
    left = submit.allowance(phase=phase, team=team)
    return {
        "team": team.name,
        "daily_left": left.daily_left,
        "total_left": left.total_left,
        "resets_at": left.resets_at,
    }
