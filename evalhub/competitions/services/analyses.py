"""Task-level results for a test set, refreshed after each scored run: comparison plots
over the leaderboard's runs and the task type's cross-run analysis (e.g. difficulty
bins)."""

from __future__ import annotations

from django.core.files.base import ContentFile
from django.db import transaction

from evalhub.competitions.models import Evaluation, Submission, TaskArtefact, TestSet
from evalhub.competitions.services import leaderboard, refreshes, taskdata
from tasks.base import Curve, Plot, RunDetail

MAX_RUNS_IN_PLOTS = 12


def _run_details(evaluations: list[Evaluation]) -> list[RunDetail]:
    details = []
    for ev in evaluations:
        sub = ev.submission
        details.append(
            RunDetail(
                label=f"{sub.team.name}: {sub.method_name} (#{sub.pk})",
                detail=ev.detail,
                curves=tuple(Curve.from_json(c) for c in ev.curves),
                metrics={
                    s.metric: s.value
                    for s in sub.scores.all()
                    if s.test_set_id == ev.test_set_id
                },
            )
        )
    return details


def refresh(*, test_set_id: int) -> list[str]:
    """Recompute and store the test set's task artefacts, then invalidate the
    leaderboard page that shows them; returns their keys. Coalesced like the
    statistics (``refreshes.turn``): [] if another refresh of the test set runs."""
    with refreshes.turn(kind=refreshes.ANALYSES, test_set_id=test_set_id) as mine:
        if not mine:
            return []
        keys = _refresh(test_set_id)
    leaderboard.invalidate(test_set_id=test_set_id, refresh_statistics=False)
    return keys


def _refresh(test_set_id: int) -> list[str]:
    test_set = TestSet.objects.select_related("phase__task").get(pk=test_set_id)
    ctx = taskdata.load_inputs(test_set)
    board = leaderboard.compute(test_set=test_set)
    top_ids = [row.submission_id for row in board.rows[:MAX_RUNS_IN_PLOTS]]
    by_id = {
        ev.submission_id: ev
        for ev in Evaluation.objects.filter(
            test_set=test_set, submission_id__in=top_ids
        ).select_related("submission__team")
    }
    top = [by_id[pk] for pk in top_ids if pk in by_id]
    keys: list[str] = []
    for plot in ctx.task_type.comparison_plots(_run_details(top), ctx.settings):
        keys.append(
            _save(
                test_set,
                f"compare-{plot.key}",
                plot,
                public={},
                runs=[ev.submission_id for ev in top],
                private={},
                organiser_only=False,
            )
        )

    all_scored = list(
        Evaluation.objects.filter(
            test_set=test_set,
            submission__status=Submission.Status.SCORED,
            submission__is_baseline=False,
            submission__hidden=False,
        ).select_related("submission__team")
    )
    if all_scored:
        gold = taskdata.load_gold(test_set)
        analysis = ctx.task_type.analyse(_run_details(all_scored), gold, ctx.settings)
        if analysis is not None:
            keys.append(
                _save(
                    test_set,
                    "analysis",
                    None,
                    public=dict(analysis.public),
                    private=dict(analysis.private),
                    organiser_only=False,
                    runs=[ev.submission_id for ev in all_scored],
                )
            )
            for plot in analysis.plots:
                keys.append(
                    _save(
                        test_set,
                        f"analysis-{plot.key}",
                        plot,
                        public={},
                        runs=[ev.submission_id for ev in all_scored],
                        private={},
                        organiser_only=False,
                    )
                )
    with transaction.atomic():
        stale = TaskArtefact.objects.filter(test_set=test_set).exclude(key__in=keys)
        for artefact in stale:
            _delete_files(artefact)
        stale.delete()
    return keys


def _save(
    test_set: TestSet,
    key: str,
    plot: Plot | None,
    *,
    public: dict,
    private: dict,
    organiser_only: bool,
    runs: list[int] | None = None,
) -> str:  # type: ignore[type-arg]
    artefact, _ = TaskArtefact.objects.get_or_create(
        test_set=test_set, key=key[:100], defaults={"title": key}
    )
    _delete_files(artefact)
    artefact.title = plot.title if plot else "Analysis"
    artefact.public_data = public
    artefact.private_data = private
    artefact.organiser_only = organiser_only
    artefact.runs = runs or []
    if plot is not None:
        artefact.svg.save(f"{artefact.key}.svg", ContentFile(plot.svg), save=False)
        artefact.png.save(f"{artefact.key}.png", ContentFile(plot.png), save=False)
    artefact.save()
    return artefact.key


def _delete_files(artefact: TaskArtefact) -> None:
    if artefact.svg:
        artefact.svg.delete(save=False)
    if artefact.png:
        artefact.png.delete(save=False)
