"""The analyses refresh draws a section again only when what it is drawn from
changed (``analyses.inputs_digest``): comparison figures the new runs did not reach
are kept as they are, the analysis over every run is drawn again, and a refresh
that stores nothing new leaves the board's version alone; what is kept is never
stale (its runs are the board's, the page shows it)."""

from __future__ import annotations

import pytest

from evalhub.competitions import jobs
from evalhub.competitions.models import BoardVersion, Submission, TaskArtefact
from evalhub.competitions.services.boards import analyses, leaderboard
from tests.competitions.board_cache import page_url, score_now

pytestmark = pytest.mark.django_db


def _drawn(test_set) -> dict[str, tuple[object, list[int]]]:  # noqa: ANN001
    """Each artefact's key -> (when it was last stored, its runs)."""
    return {
        a.key: (a.updated_at, sorted(a.runs))
        for a in TaskArtefact.objects.filter(test_set=test_set, track=None)
    }


def _version(test_set) -> int:  # noqa: ANN001
    return BoardVersion.objects.get(test_set=test_set).version


def _refresh(test_set, capture) -> list[str]:  # noqa: ANN001
    with capture(execute=True):
        return jobs.refresh_analyses(test_set.pk)


def test_figures_the_new_run_did_not_reach_are_kept_and_the_rest_follows(
    client,
    monkeypatch,
    phase,
    test_set,
    submit_run,
    bucc_demo,
    outsider,
    other_team,
    django_capture_on_commit_callbacks,
):
    # The comparison figures draw the best run only (twelve in production).
    monkeypatch.setattr(analyses, "MAX_RUNS_IN_PLOTS", 1)
    best = submit_run(bucc_demo.runs[0][2]["test"], method="dictionary")
    score_now(best.pk, django_capture_on_commit_callbacks)
    keys = _refresh(test_set, django_capture_on_commit_callbacks)
    compare = [k for k in keys if k.startswith(analyses.COMPARE_PREFIX)]
    assert compare
    assert "analysis" in keys
    before = _drawn(test_set)

    worse = submit_run(bucc_demo.runs[2][2]["test"], user=outsider, method="random")
    score_now(worse.pk, django_capture_on_commit_callbacks)
    board = leaderboard.compute(test_set=test_set)
    assert [r.submission_id for r in board.rows] == [best.pk, worse.pk]
    scored_version = _version(test_set)
    assert set(_refresh(test_set, django_capture_on_commit_callbacks)) == set(keys)
    after = _drawn(test_set)
    # Kept: the same files, drawn from the board's best run, which it still is.
    assert {k: after[k] for k in compare} == {k: before[k] for k in compare}
    assert all(after[k][1] == [best.pk] for k in compare)
    # Drawn again: the analysis over every run, and the board follows it.
    analysis = [k for k in keys if k.startswith("analysis")]
    assert all(after[k][1] == sorted([best.pk, worse.pk]) for k in analysis)
    assert all(after[k][0] != before[k][0] for k in analysis)
    assert _version(test_set) == scored_version + 1

    # Nothing new: nothing drawn, nothing stored, the board's version unchanged.
    assert set(_refresh(test_set, django_capture_on_commit_callbacks)) == set(keys)
    assert _drawn(test_set) == after
    assert _version(test_set) == scored_version + 1

    # What was kept is served: every figure is on the public page.
    page = client.get(page_url(phase)).content.decode()
    for key in keys:
        if TaskArtefact.objects.get(test_set=test_set, track=None, key=key).svg:
            assert f"/{key}." in page or f"/{key}/" in page, key


def test_a_new_best_run_redraws_the_comparison_figures(
    monkeypatch,
    test_set,
    submit_run,
    bucc_demo,
    outsider,
    other_team,
    django_capture_on_commit_callbacks,
):
    monkeypatch.setattr(analyses, "MAX_RUNS_IN_PLOTS", 1)
    worse = submit_run(bucc_demo.runs[2][2]["test"], method="random")
    score_now(worse.pk, django_capture_on_commit_callbacks)
    keys = _refresh(test_set, django_capture_on_commit_callbacks)
    before = _drawn(test_set)
    best = submit_run(bucc_demo.runs[0][2]["test"], user=outsider, method="dictionary")
    score_now(best.pk, django_capture_on_commit_callbacks)
    scored_version = _version(test_set)
    _refresh(test_set, django_capture_on_commit_callbacks)
    after = _drawn(test_set)
    for key in keys:
        if key.startswith(analyses.COMPARE_PREFIX):
            assert after[key][1] == [best.pk]
            assert after[key][0] != before[key][0]
    assert _version(test_set) == scored_version + 1


def test_a_renamed_team_redraws_the_figures_that_name_it(
    monkeypatch,
    test_set,
    team,
    submit_run,
    bucc_demo,
    django_capture_on_commit_callbacks,
):
    run = submit_run(bucc_demo.runs[0][2]["test"], method="dictionary")
    score_now(run.pk, django_capture_on_commit_callbacks)
    _refresh(test_set, django_capture_on_commit_callbacks)
    before = _drawn(test_set)
    with django_capture_on_commit_callbacks(execute=True):
        team.name = "Omega"
        team.save()
    _refresh(test_set, django_capture_on_commit_callbacks)
    after = _drawn(test_set)
    assert set(after) == set(before)
    assert all(after[k][0] != before[k][0] for k in after)
    compare = next(k for k in after if k.startswith(analyses.COMPARE_PREFIX))
    points = TaskArtefact.objects.get(test_set=test_set, key=compare).public_data
    label = analyses.run_label(Submission.objects.get(pk=run.pk))
    assert label.startswith("Omega: ")
    assert {p[1] for p in points["points"]} == {label}


def test_new_drawing_code_redraws_every_figure(
    monkeypatch,
    test_set,
    submit_run,
    bucc_demo,
    django_capture_on_commit_callbacks,
):
    """A release whose drawing code differs (``plotting.drawing_digest``: the
    sources of ``tasks/`` and matplotlib's version) draws the kept figures again,
    though no run changed."""
    from tasks.common import plotting

    run = submit_run(bucc_demo.runs[0][2]["test"], method="dictionary")
    score_now(run.pk, django_capture_on_commit_callbacks)
    _refresh(test_set, django_capture_on_commit_callbacks)
    before = _drawn(test_set)
    _refresh(test_set, django_capture_on_commit_callbacks)
    assert _drawn(test_set) == before  # same code, same inputs: kept
    monkeypatch.setattr(plotting, "drawing_digest", lambda: "the next release")
    _refresh(test_set, django_capture_on_commit_callbacks)
    after = _drawn(test_set)
    assert set(after) == set(before)
    assert all(after[k][0] != before[k][0] for k in after)
