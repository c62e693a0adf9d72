"""The overview-paper package of a phase with tracks (issue 20): a board per test set
and track, each with its own table, p-values and bands (significance within the
track), equal to the track's leaderboard and to ``evalhub compare`` on the track's
run files; a figure's caption counts the systems it draws. Without tracks:
``test_package.py``."""

from __future__ import annotations

import csv
import io
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from evalhub.competitions.services import teams
from evalhub.competitions.services.boards import analyses, leaderboard
from evalhub.competitions.services.data import tracks
from evalhub.competitions.services.runs import submit
from evalhub.rankings import jobs
from evalhub.rankings.models import TestSetStatistics
from evalhub.rankings.services import package, package_files, statistics
from tasks import cli
from tests.rankings.helpers import compare_args, rescored

pytestmark = pytest.mark.django_db


@pytest.fixture
def tracked(task, phase, test_set, bucc_demo, django_user_model):  # noqa: ANN001, ANN201
    """Two tracks; closed: teams 0 > 1 > 2, open: team 1 > team 0 (the demo's
    systems), in submission order."""
    tracks.save_track(phase=phase, slug="closed", name="closed & small")
    tracks.save_track(phase=phase, slug="open", name="open")
    best, middle, worst = (files["test"] for _, _, files in bucc_demo.runs)
    users = []
    for i in range(3):
        users.append(django_user_model.objects.create_user(f"tr{i}"))
        teams.register(task=task, user=users[-1], new_team_name=f"Team {i}")
    plan = [
        (0, best, "dict", "closed"),
        (1, middle, "roots", "closed"),
        (2, worst, "random", "closed"),
        (1, best, "dict+web", "open"),
        (0, worst, "random+web", "open"),
    ]
    subs = []
    for i, data, method, track in plan:
        sub = submit.submit_run(
            phase=phase,
            user=users[i],
            filename="run.tsv",
            data=data,
            method_name=method,
            track=track,
        )
        subs.append(rescored(sub, figures=False))
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    return subs


def test_a_board_per_test_set_and_track(  # noqa: PLR0913
    tracked, phase, test_set, bucc_demo, organiser, tmp_path: Path
):
    """Each track has its own table, p-values and bands (significance within the
    track), equal to the track's leaderboard and to ``evalhub compare`` on the
    track's run files."""
    built = package.build(phase=phase, user=organiser, render=True)
    assert [b.key.slug for b in built.boards] == ["public--closed", "public--open"]
    stats = TestSetStatistics.objects.get(test_set=test_set)
    for board in built.boards:
        shown = leaderboard.board(
            test_set=test_set, include_hidden=False, track=board.key.track
        )
        assert [r["run"] for r in board.runs] == [r.submission_id for r in shown.rows]
        assert [s["band"] for s in board.table["systems"]] == [
            r.band for r in shown.rows
        ]
        matrix = statistics.with_pairs(
            test_set=test_set,
            matrix=statistics.matrix_of(stats.data, board.key.track.pk),
        )
        assert board.table["p_randomisation"] == matrix["p_randomisation"]
    assert len(built.boards[0].runs) == 3 and len(built.boards[1].runs) == 2
    files = package_files.files(built)
    main = files["main.tex"].decode()
    assert r"Track closed \& small: Table~\ref{tab:results-public--closed}" in main
    assert r"\input{pvalues/public--open}" in main
    # Each track's table says which it is (no two identical captions).
    captions = {
        slug: next(
            line
            for line in files[f"tables/{slug}.tex"].decode().splitlines()
            if line.startswith(r"\caption")
        )
        for slug in ("public--closed", "public--open")
    }
    assert (
        "Results on test set Public, track closed \\& small: 3 systems"
        in (captions["public--closed"])
    )
    assert (
        "Results on test set Public, track open: 2 systems" in captions["public--open"]
    )
    systems = list(csv.DictReader(io.StringIO(files["systems.csv"].decode())))
    assert sorted((r["method"], r["track"]) for r in systems) == [
        ("dict", "closed & small"),
        ("dict+web", "open"),
        ("random", "closed & small"),
        ("random+web", "open"),
        ("roots", "closed & small"),
    ]
    assert "Track" in files["systems.tex"].decode()
    # The closed track's table is what `evalhub compare` prints on its files.
    args = compare_args(tmp_path, bucc_demo, tracked[:3], test_set.gold_version)
    args += ["--title", "test set Public, track closed & small"]
    args += ["--label", "public--closed"]
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main(args) == 0
    expected = files["tables/public--closed.tex"] + b"\n"
    expected += files["pvalues/public--closed.tex"]
    assert out.getvalue() == expected.decode()


def test_a_figure_caption_counts_the_systems_it_draws(
    tracked, phase, test_set, organiser
):  # noqa: ANN001
    """With tracks, each track keeps its own figures under the same key as the
    board of every track; the package's figures are the latter's, and so is the
    count of systems their captions give (CI found the count of a track's figure
    once: it depended on the order the database returned them in)."""
    analyses.refresh(test_set_id=test_set.pk)
    built = package.build(phase=phase, user=organiser, render=True)
    figures = {
        name: caption
        for name, (_, caption) in built.captions.items()
        if name.startswith("figures/") and not name.endswith("intervals.pdf")
    }
    assert figures
    for caption in figures.values():
        assert caption.endswith(f"one line per system ({len(tracked)} systems).")
