"""Every number stored is finite, and one bad run never stops the statistics,
analyses or plots of the others (issue 15). An MT-probe run with nothing judged yet
has undefined shares (the spec's null cells); a run of empty lines has nothing to
score at all and is refused when it is submitted."""

from __future__ import annotations

import logging
import math

import pytest
from django.db import IntegrityError, connection, transaction

from evalhub.competitions.finite import NonFiniteNumber
from evalhub.competitions.models import Evaluation, Score, TaskArtefact
from evalhub.competitions.services.boards import analyses, leaderboard
from evalhub.competitions.services.runs import submit
from evalhub.rankings import jobs as ranking_jobs
from evalhub.rankings.models import TestSetStatistics

pytestmark = pytest.mark.django_db


def _n_probes(mt_demo) -> int:  # noqa: ANN001
    return mt_demo.test_sets[0].inputs["probes"].decode().count("\n")


def test_a_run_of_empty_lines_is_refused(mt_test_set, mt_demo, participant, team_of):
    team_of(participant)
    with pytest.raises(submit.SubmissionInvalid) as exc:
        submit.submit_run(
            phase=mt_test_set.phase,
            user=participant,
            filename="empty.txt",
            data=b"\n" * 100_000,
            method_name="nothing",
        )
    (problem,) = exc.value.problems
    assert "no translation" in problem.message
    assert not mt_test_set.phase.submissions.exclude(status="rejected").exists()


@pytest.fixture
def team_of(mt_task):  # noqa: ANN001, ANN201
    from evalhub.competitions.services import teams

    return lambda user: teams.register(task=mt_task, user=user, new_team_name="Solo")


def test_unjudged_run_leaves_the_others_their_bands(
    mt_runs, submit_scored, mt_test_set, mt_demo, caplog, without_plots
):
    """A run no automatic tag settles (every share undefined) is scored with null
    shares; the statistics refresh skips it (logged) and the other runs keep their
    intervals and bands."""
    lines = "".join("qqq zzz\n" for _ in range(_n_probes(mt_demo))).encode()
    unjudged = submit_scored("unjudged", lines)
    primary = Score.objects.get(
        submission=unjudged, test_set=mt_test_set, metric="correct_low_mean"
    )
    assert primary.value is None
    with caplog.at_level(logging.WARNING):
        assert ranking_jobs.refresh_statistics(mt_test_set.pk) == "refreshed"
    assert f"run {unjudged.pk}" in caplog.text
    data = TestSetStatistics.objects.get(test_set=mt_test_set).data
    assert str(unjudged.pk) not in data["intervals"]
    others = {str(s.pk) for s in mt_runs.values()}
    assert set(data["intervals"]) == others
    for iv in data["intervals"].values():
        assert all(math.isfinite(iv[k]) for k in ("value", "low", "high"))
    board = leaderboard.compute(test_set=mt_test_set)
    banded = {r.submission_id for r in board.rows if r.band is not None}
    # A mean over fewer word classes takes no band (services/boards/coverage.py).
    marked = {r.submission_id for r in board.rows if r.coverage}
    assert len(banded) >= 2
    assert banded == {s.pk for s in mt_runs.values()} - marked


def test_one_failing_run_does_not_stop_the_analyses(
    mt_runs, mt_test_set, monkeypatch, caplog, without_plots
):
    """A run whose stored outcome breaks the task type's comparison plots is left
    out of them (logged); the plots of the others are drawn."""
    from tasks.mt_lexicon_probe.task import MtLexiconProbe

    bad = mt_runs["small"]
    original = MtLexiconProbe.comparison_plots
    secret = "-".join(("gold", "item", "quoted"))

    def fragile(self, runs, settings):  # noqa: ANN001, ANN202
        if any(f"#{bad.pk})" in r.label for r in runs):
            raise KeyError(secret)
        return original(self, runs, settings)

    monkeypatch.setattr(MtLexiconProbe, "comparison_plots", fragile)
    with caplog.at_level(logging.WARNING):
        keys = analyses.refresh(test_set_id=mt_test_set.pk)
    assert any(k.startswith("compare-") for k in keys)
    assert f"run {bad.pk}" in caplog.text
    assert "KeyError" in caplog.text
    assert secret not in caplog.text  # its text may quote gold: type and frames only
    artefact = TaskArtefact.objects.filter(
        test_set=mt_test_set, key__startswith="compare-"
    ).first()
    assert bad.pk not in artefact.runs and len(artefact.runs) == 2


def test_the_json_columns_refuse_nan_and_infinity(mt_runs, mt_test_set):
    evaluation = Evaluation.objects.filter(test_set=mt_test_set).first()
    for bad in (float("nan"), float("inf"), -float("inf")):
        evaluation.payload = {"mean": {"low": bad}}
        with pytest.raises(NonFiniteNumber), transaction.atomic():
            evaluation.save()
    row, _ = TestSetStatistics.objects.get_or_create(test_set=mt_test_set)
    row.data = {"intervals": {"1": {"value": float("nan")}}}
    with pytest.raises(NonFiniteNumber), transaction.atomic():
        row.save()


def test_the_score_column_refuses_nan_and_infinity(mt_runs, mt_test_set):
    score = Score.objects.filter(test_set=mt_test_set).first()
    for bad in (float("nan"), float("inf"), -float("inf")):
        score.value = bad
        with pytest.raises(NonFiniteNumber), transaction.atomic():
            score.save()
    # Past the model too (an update bypasses save): the database refuses
    # infinities, and NaN too on PostgreSQL; SQLite stores a NaN as NULL itself
    # (no value), so nothing non-finite is stored either way.
    for bad in (float("inf"), -float("inf")):
        with pytest.raises(IntegrityError), transaction.atomic():
            Score.objects.filter(pk=score.pk).update(value=bad)
    rows = Score.objects.filter(pk=score.pk)
    if connection.vendor == "sqlite":
        rows.update(value=float("nan"))
        assert rows.get().value is None
    else:
        with pytest.raises(IntegrityError), transaction.atomic():
            rows.update(value=float("nan"))


def test_a_scorer_returning_nan_fails_that_run_only(
    mt_runs, mt_test_set, mt_demo, monkeypatch, django_user_model, without_plots
):
    """A report with a NaN (a scorer bug) fails its run as a scorer error before
    anything is stored; the other runs' scores and the refreshes are untouched."""
    import dataclasses

    from evalhub.competitions.models import Submission
    from evalhub.competitions.services import teams
    from evalhub.competitions.services.runs import scoring
    from tasks.mt_lexicon_probe.task import MtLexiconProbe

    original = MtLexiconProbe.score

    def nan_score(self, run, gold, inputs, settings):  # noqa: ANN001, ANN202
        report = original(self, run, gold, inputs, settings)
        return dataclasses.replace(
            report, metrics={**report.metrics, "correct_low_mean": float("nan")}
        )

    monkeypatch.setattr(MtLexiconProbe, "score", nan_score)
    user = django_user_model.objects.create_user("nan-maker")
    teams.register(task=mt_test_set.phase.task, user=user, new_team_name="NaN")
    sub = submit.submit_run(
        phase=mt_test_set.phase,
        user=user,
        filename="nan.txt",
        data=next(iter(mt_demo.runs[0][2].values())),
        method_name="nan",
    )
    assert scoring.score_submission(submission_id=sub.pk) == "failed"
    sub.refresh_from_db()
    assert sub.failure_category == Submission.Failure.SCORER
    assert not Evaluation.objects.filter(submission=sub).exists()
    assert not Score.objects.filter(submission=sub).exists()
    assert ranking_jobs.refresh_statistics(mt_test_set.pk) == "refreshed"
    data = TestSetStatistics.objects.get(test_set=mt_test_set).data
    assert set(data["intervals"]) == {str(s.pk) for s in mt_runs.values()}


def test_a_chart_that_cannot_be_drawn_leaves_the_numbers_stored(
    mt_runs, mt_test_set, monkeypatch, caplog
):
    from evalhub.rankings.services import charts

    def broken(shown):  # noqa: ANN001, ANN202
        raise RuntimeError("drawing failed")

    monkeypatch.setattr(charts, "draw", broken)
    with caplog.at_level(logging.ERROR):
        assert ranking_jobs.refresh_statistics(mt_test_set.pk) == "refreshed"
    assert f"interval chart of test set {mt_test_set.pk}" in caplog.text
    row = TestSetStatistics.objects.get(test_set=mt_test_set)
    assert set(row.data["intervals"]) == {str(s.pk) for s in mt_runs.values()}
    assert not row.chart_svg
