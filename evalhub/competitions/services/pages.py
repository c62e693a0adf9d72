"""What each page shows, with the leak rules applied (see services/access.py)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from evalhub.competitions.models import (
    Artefact,
    Evaluation,
    Registration,
    SharedTask,
    Submission,
    TaskArtefact,
    TestSet,
)
from evalhub.competitions.services import access, finals, leaderboard, submit


def task_page(*, task: SharedTask, user: object) -> dict[str, object]:
    organiser = access.is_organiser(user, task)
    registration = None
    if getattr(user, "is_authenticated", False):
        registration = (
            Registration.objects.filter(task=task, team__members=user)
            .select_related("team")
            .first()
        )
    phases = []
    for phase in task.phases.prefetch_related("test_sets__files"):
        test_sets = []
        for ts in phase.test_sets.all():
            files = [f for f in ts.files.all() if not f.private or organiser]
            test_sets.append({"test_set": ts, "files": files})
        allowance = None
        if registration and registration.status == Registration.Status.APPROVED:
            allowance = submit.allowance(phase=phase, team=registration.team)
        runs = (
            Submission.objects.filter(phase=phase, team=registration.team)[:50]
            if registration
            else []
        )
        phases.append(
            {
                "phase": phase,
                "test_sets": test_sets,
                "allowance": allowance,
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


@dataclass(frozen=True, slots=True)
class BoardView:
    test_set: TestSet
    board: leaderboard.Board | None  # None when hidden from this viewer
    plots: tuple[TaskArtefact, ...]
    analysis: TaskArtefact | None
    show_private_analysis: bool


def leaderboard_page(*, phase, user: object) -> dict[str, object]:  # noqa: ANN001
    """The page around the boards, and the boards' HTML from the fragment cache
    (see ``leaderboard.fragment``): a hit costs the test set rows and two cache
    reads, whoever the viewer is."""
    task = phase.task
    test_sets = list(phase.test_sets.all())
    primary = task.type.metric(task.type.primary_metric)
    # Everything the fragment may show a viewer is decided by these flags (the leak
    # rules of services/access.py); viewers with the same flags share one fragment.
    audience = (
        tuple(access.can_see_scores(user, ts) for ts in test_sets),
        access.can_see_detail(user, task),
        access.can_see_hidden_runs(user, task),
    )

    def render() -> str:
        return render_to_string(
            "competitions/phase_leaderboard_boards.html",
            {
                "boards": _board_views(test_sets, user, *audience),
                "primary": primary,
            },
        )

    return {
        "task": task,
        "phase": phase,
        "boards_html": leaderboard.fragment(
            test_sets=test_sets,
            vary_on=(phase.pk, timezone.get_current_timezone_name(), audience),
            render=render,
        ),
        "primary": primary,
        "finals": leaderboard.finals_apply(phase),
        "has_private": any(
            ts.visibility == TestSet.Visibility.PRIVATE for ts in test_sets
        ),
        "is_organiser": access.is_organiser(user, task),
    }


def anonymous_leaderboard_key(*, slug: str, phase_slug: str, path: str) -> str | None:
    """Cache key of the whole leaderboard page as anonymous visitors see it (no
    per-viewer content: no CSRF token, no messages; the caller checks both), or None
    when there is no such page for them (no such phase, a draft task, no test set):
    the view then answers as for anyone.

    The key holds everything the page shows that can change (task title, type and
    state, phase name and final-run rule, each test set's name, visibility, reveal
    and board version), read in one query and one cache read, so a page served from
    the cache costs no more than that; the rows are read fresh on every request, so
    a change shows at once."""
    with connection.cursor() as cursor:
        sql, order = _page_rows_sql(connection.vendor)
        given = {_SLUG: slug, _PHASE: phase_slug}
        cursor.execute(sql, [given[name] for name in order])
        rows = cursor.fetchall()
    if not rows:
        return None
    _, _, _, _, phase_name, max_final_runs, state, title, task_type = rows[0]
    if not access.can_see_task(AnonymousUser(), SharedTask(state=state)):
        return None
    test_sets = [
        TestSet(pk=pk, name=name, visibility=visibility, revealed=revealed)
        for pk, name, visibility, revealed, *_ in rows
    ]
    return leaderboard.page_key(
        test_sets=test_sets,
        vary_on=(
            "anonymous",
            path,
            timezone.get_current_timezone_name(),
            title,
            task_type,
            state,
            phase_name,
            max_final_runs,
        ),
    )


_SLUG, _PHASE = "\x00task-slug", "\x00phase-slug"


@functools.cache
def _page_rows_sql(vendor: str) -> tuple[str, tuple[str, ...]]:
    """The SQL of the anonymous page's rows and the order of its parameters (the
    task and phase slugs), compiled by the ORM once per process and database
    vendor: compiling this three-table query took more CPU than anything else on
    a page served from the cache."""
    query = (
        TestSet.objects.filter(phase__task__slug=_SLUG, phase__slug=_PHASE)
        .values_list(
            "pk",
            "name",
            "visibility",
            "revealed",
            "phase__name",
            "phase__max_final_runs",
            "phase__task__state",
            "phase__task__title",
            "phase__task__task_type",
        )  # fmt: skip
        .query
    )
    sql, params = query.sql_with_params()
    if sorted(params) != sorted((_SLUG, _PHASE)):
        raise AssertionError(f"unexpected parameters {params!r} ({vendor})")
    return sql, tuple(params)


def _board_views(
    test_sets: list[TestSet],
    user: object,
    shown: tuple[bool, ...],
    detail: bool,
    hidden_runs: bool,
) -> list[BoardView]:
    """What the fragment shows; it depends on ``user`` only through the audience
    flags (``shown``, ``detail``, ``hidden_runs``), which key the cache."""
    views = []
    for ts, visible in zip(test_sets, shown, strict=True):
        if not visible:
            views.append(BoardView(ts, None, (), None, False))
            continue
        artefacts = list(ts.task_artefacts.all())
        plots = tuple(
            a for a in artefacts if a.svg and access.can_see_task_artefact(user, a)
        )
        analysis = next(
            (
                a
                for a in artefacts
                if a.key == "analysis" and access.can_see_task_artefact(user, a)
            ),
            None,
        )
        views.append(
            BoardView(
                ts,
                leaderboard.board(test_set=ts, include_hidden=hidden_runs),
                plots,
                analysis,
                detail,
            )
        )
    return views


def leaderboard_export(*, phase, user: object) -> dict[str, object]:  # noqa: ANN001
    out: dict[str, object] = {
        "task": phase.task.slug,
        "phase": phase.slug,
        "test_sets": [],
    }
    organiser = access.can_see_hidden_runs(user, phase.task)
    for ts in phase.test_sets.all():
        if not access.can_see_scores(user, ts):
            continue
        board = leaderboard.board_for(test_set=ts, user=user)
        out["test_sets"].append(  # type: ignore[attr-defined]
            {
                "test_set": ts.slug,
                "primary_metric": board.primary_metric,
                "signature": board.signature,
                "rows": [_export_row(r, organiser) for r in board.rows],
            }
        )
    return out


def _export_row(r: leaderboard.Row, organiser: bool) -> dict[str, object]:
    """One ranked run: the primary metric's bootstrap interval (``interval_low``,
    ``interval_high``: None until computed) and rank band; for organisers also the
    team's choices (``hidden``, ``final``)."""
    row: dict[str, object] = {
        "rank": r.rank,
        "team": r.team,
        "run": r.submission_id,
        "method": r.method_name,
        "submitted_at": r.submitted_at.isoformat(),
        "baseline": r.is_baseline,
        **{k: v for k, v, _ in r.metrics},
        "interval_low": r.low,
        "interval_high": r.high,
        "band": r.band,
    }
    if organiser:
        row["hidden"] = r.hidden
        row["final"] = r.final
    return row


@dataclass(frozen=True, slots=True)
class EvaluationView:
    test_set: TestSet
    visible: bool
    metrics: tuple[tuple[str, str, str], ...]  # key, label, formatted value
    plots: tuple[Artefact, ...]
    detail_url: str | None


def run_page(*, submission: Submission, user: object) -> dict[str, object]:
    task = submission.phase.task
    task_type = task.type
    private_ok = access.can_see_run_private(user, submission)
    detail_ok = access.can_see_detail(user, task)
    evaluations = []
    if submission.status == Submission.Status.SCORED:
        for ev in (
            Evaluation.objects.filter(submission=submission)
            .select_related("test_set")
            .prefetch_related("artefacts")
        ):
            visible = access.can_see_run_scores(user, submission, ev.test_set)
            values = {
                s.metric: s.value
                for s in submission.scores.filter(test_set=ev.test_set)
            }
            metrics = (
                tuple(
                    (m.key, m.label, m.format(values.get(m.key)))
                    for m in task_type.metrics
                )
                if visible
                else ()
            )
            evaluations.append(
                EvaluationView(
                    test_set=ev.test_set,
                    visible=visible,
                    metrics=metrics,
                    plots=tuple(ev.artefacts.all()) if visible else (),
                    detail_url=reverse(
                        "competitions:run-item-detail",
                        args=[submission.pk, ev.test_set_id],
                    )
                    if detail_ok
                    else None,
                )
            )
    manage = access.can_manage_run(user, submission)
    return {
        "run": submission,
        "task": task,
        "evaluations": evaluations,
        "can_manage": manage,
        "choices": finals.choices(phase=submission.phase, team=submission.team)
        if manage
        else None,
        "show_private": private_ok,
        "is_organiser": access.is_organiser(user, task),
        "primary_metric": task_type.primary_metric,
    }


def item_detail_page(*, submission: Submission, test_set_id: int) -> dict[str, object]:
    """Organiser-only (or after gold release): the per-item outcomes of one run on one
    test set, spelled out by the task type."""
    from evalhub.competitions.services import taskdata

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
