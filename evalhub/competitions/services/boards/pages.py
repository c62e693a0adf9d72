"""What each page shows, with the leak rules applied (see services/boards/access.py)."""

from __future__ import annotations

import dataclasses
import functools
import shlex
from dataclasses import dataclass

from django.urls import reverse

from evalhub.competitions.models import (
    Artefact,
    Evaluation,
    Registration,
    SharedTask,
    Submission,
    TestSet,
)
from evalhub.competitions.services import roles
from evalhub.competitions.services.boards import (
    access,
    own_rows,
    ranking,
    run_scores,
    systems,
)
from evalhub.competitions.services.data import tracks
from evalhub.competitions.services.runs import finals, submit


def task_page(*, task: SharedTask, user: object) -> dict[str, object]:
    organiser = roles.is_organiser(user, task)
    registration = None
    if getattr(user, "is_authenticated", False):
        registration = (
            Registration.objects.filter(task=task, team__members=user)
            .select_related("team")
            .first()
        )
    phases = []
    gold_public = organiser or task.gold_released
    for phase in task.phases.prefetch_related("test_sets__files"):
        test_sets = []
        for ts in phase.test_sets.all():
            files = [f for f in ts.files.all() if not f.private or gold_public]
            command = score_command(task, files) if task.gold_released else None
            test_sets.append({"test_set": ts, "files": files, "command": command})
        allowance = None
        if registration and registration.status == Registration.Status.APPROVED:
            allowance = submit.allowance(phase=phase, team=registration.team)
        runs = (
            Submission.objects.filter(
                phase=phase, team=registration.team
            ).select_related("track")[:50]
            if registration
            else []
        )
        commands = any(ts["command"] for ts in test_sets)
        phases.append(
            {
                "phase": phase,
                "test_sets": test_sets,
                "has_commands": commands,
                # Why no command: the gold is released, the type offers none.
                "offline_note": task.type.no_score_command
                if task.gold_released and test_sets and not commands
                else "",
                "allowance": allowance,
                "tracks": tracks.phase_tracks(phase),
                "runs": runs,
                "finals": finals.choices(phase=phase, team=registration.team)
                if registration
                else None,
            }
        )
    return {
        "task": task,
        "task_type": task.type,
        "phases": phases,
        "registration": registration,
        "is_organiser": organiser,
    }


def score_command(task: SharedTask, files: list) -> str | None:  # type: ignore[type-arg]
    """The ``evalhub score`` command that reproduces a run's official scores on a
    test set offline, its files named as they download, the run as ``RUN``; None
    when the task type has no single such command or a file is missing."""
    names = {f.role: f.original_name for f in files}
    names[task.type.submission_role.key] = "RUN"
    try:
        args = task.type.score_command(task.parsed_settings(), names)
    except KeyError:  # a test set without its gold or a required input
        return None
    return None if args is None else shlex.join(args)


@dataclass(frozen=True, slots=True)
class EvaluationView:
    test_set: TestSet
    visible: bool
    metrics: tuple[tuple[str, str, str], ...]  # key, label, formatted value
    plots: tuple[Artefact, ...]
    detail_url: str | None
    #: The run's place on the test set's board, if the viewer sees that board.
    rank: own_rows.RunRank | None = None
    #: Its figures are still to be drawn (by their own job, after the score).
    figures_pending: bool = False


def run_page(*, submission: Submission, user: object) -> dict[str, object]:
    task = submission.phase.task
    private_ok = access.can_see_run_private(user, submission)
    manage = access.can_manage_run(user, submission)
    scores = run_scores.KeptScores(
        submission=submission,
        user=user,
        context=functools.partial(run_scores_context, submission, user),
    )
    return {
        "run": submission,
        "task": task,
        # ``evaluations`` and ``primary_metric``, computed only where the kept
        # copy of the viewer's audience is missing (``run_scores``).
        "scores": scores,
        # The status part polls until they are drawn, then reloads the page.
        "figures_pending": scores.figures_pending(),
        "can_manage": manage,
        "choices": finals.choices(phase=submission.phase, team=submission.team)
        if manage
        else None,
        "show_private": private_ok,
        "is_organiser": roles.is_organiser(user, task),
        # Called by the template only where shown (not by the polled status part).
        "panels": functools.partial(systems.panels, submission.phase, user, submission),
    }


def run_scores_context(submission: Submission, user: object) -> dict[str, object]:
    """The run's scores as ``user`` sees them: ``evaluations`` (one
    ``EvaluationView`` per test set it was scored on; none before it is scored)
    and ``primary_metric`` (marks a row of the scores shown)."""
    task = submission.phase.task
    task_type = task.type
    detail_ok = access.can_see_detail(user, task)
    evaluations = []
    if submission.status == Submission.Status.SCORED:
        values: dict[int, dict[str, float]] = {}
        for test_set_id, metric, value in submission.scores.values_list(
            "test_set_id", "metric", "value"
        ):
            values.setdefault(test_set_id, {})[metric] = value
        for ev in (
            Evaluation.objects.filter(submission=submission)
            .order_by("test_set")  # TestSet's own ordering: the phase's order
            .select_related("test_set")
            .prefetch_related("artefacts")
        ):
            # The run's phase object: its task and ranking are read once.
            ev.test_set.phase = submission.phase
            visible = access.can_see_run_scores(user, submission, ev.test_set)
            shown = values.get(ev.test_set_id, {})
            metrics = (
                tuple(
                    (m.key, m.label, m.format(shown.get(m.key)))
                    for m in task_type.metrics
                )
                if visible
                else ()
            )
            drawn = ev.figures == Evaluation.Figures.DRAWN
            evaluations.append(
                EvaluationView(
                    test_set=ev.test_set,
                    visible=visible,
                    metrics=metrics,
                    plots=tuple(ev.artefacts.all()) if visible and drawn else (),
                    figures_pending=visible and not drawn,
                    detail_url=reverse(
                        "competitions:run-item-detail",
                        args=[submission.pk, ev.test_set_id],
                    )
                    if detail_ok
                    else None,
                )
            )
    if evaluations:
        ranks = own_rows.run_ranks(
            submission=submission,
            user=user,
            test_sets=[ev.test_set for ev in evaluations if ev.visible],
        )
        evaluations = [
            dataclasses.replace(ev, rank=ranks.get(ev.test_set.pk))
            for ev in evaluations
        ]
    return {
        "evaluations": evaluations,
        "primary_metric": ranking.of(submission.phase).metric if evaluations else "",
    }


def item_detail_page(*, submission: Submission, test_set_id: int) -> dict[str, object]:
    """Organiser-only (or after gold release): the per-item outcomes of one run on one
    test set, spelled out by the task type."""
    from evalhub.competitions.services.data import taskdata

    evaluation = Evaluation.objects.select_related("test_set").get(
        submission=submission, test_set_id=test_set_id
    )
    task = submission.phase.task
    ctx = taskdata.load_inputs(evaluation.test_set)
    gold = taskdata.load_gold(evaluation.test_set)
    described = ctx.task_type.describe_detail(evaluation.detail, gold, ctx.settings)
    return {
        "run": submission,
        "task": task,
        "evaluation": evaluation,
        "detail": described,
    }
