"""Property: whatever a team does — submit, hide, unhide, choose final runs — and
whatever the organisers do — replace gold or inputs and delete files of either test
set, rescore, reveal — and whenever the statistics and analyses workers run, the
public never sees a run's public-test-set score that the Ladder has not released,
and every scored run's scores rest on the current data of every test set that can
score it (none on a test set that cannot). The Ladder's releases are computed here
independently, from the submission history alone (``tasks.common.resampling.ladder``
over every run of a team in submission order).

Every public surface is read as the public reads it (web requests, anonymous): the
boards and their fragments, the JSON/CSV/LaTeX exports, the API, the analysis and
every figure with its data CSV and export, and the package. None of them names a run
the public board does not show now, and the difficulty bins count no run they do not
list, so no withheld run's number can be derived from them."""

from __future__ import annotations

import csv
import io
import zipfile
from datetime import timedelta

import pytest
from django.db import transaction
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from evalhub.competitions import jobs as competition_jobs
from evalhub.competitions.models import Evaluation, Phase, Submission, TaskArtefact
from evalhub.competitions.services import teams as team_service
from evalhub.competitions.services.boards import boardcache
from evalhub.competitions.services.data import datasets, taskdata
from evalhub.competitions.services.runs import finals, hiding
from evalhub.rankings import jobs
from evalhub.rankings.models import PhaseRanking
from evalhub.rankings.services import package
from tasks.base import ScoreReport
from tasks.common import resampling as rs
from tests.rankings.helpers import rescored
from tests.rankings.test_ladder_guarantees import _public_runs
from tests.rankings.test_statistics import _noisy
from tests.rankings.test_visibility_rule import scored_by_the_job

pytestmark = pytest.mark.django_db

OPS = st.one_of(
    # "late": an upload that started before the team's latest run and committed
    # after it (its place in the history is its commit order).
    st.tuples(
        st.sampled_from(["submit", "late"]), st.integers(0, 3), st.integers(0, 1)
    ),
    st.tuples(st.sampled_from(["hide", "unhide", "final"]), st.integers(0, 20)),
    st.tuples(st.sampled_from(["gold", "work", "refresh", "reveal", "analyses"])),
    # A test set's D1 replaced by a smaller one (or back): 0 the public one, 1 the
    # private one; the private test set's gold or D2 deleted (or stored again).
    st.tuples(st.just("inputs"), st.integers(0, 1)),
    st.tuples(st.just("drop"), st.sampled_from(["gold", "target_terms"])),
)


@pytest.fixture
def world(task, phase, test_set, private_test_set, bucc_demo, participant, outsider):
    Phase.objects.filter(pk=phase.pk).update(daily_limit=1000, total_limit=1000)
    phase.refresh_from_db()
    ranking = PhaseRanking.objects.create(
        phase=phase, ladder=True, bootstrap_samples=100
    )
    team_service.register(task=task, user=participant, new_team_name="A")
    team_service.register(task=task, user=outsider, new_team_name="B")
    runs = {method: files["test"] for _, method, files in bucc_demo.runs}
    gold = bucc_demo.test_sets[0].gold["gold"]
    files = [runs["roots only"], _noisy(runs["roots only"], gold)]
    files += [runs["dictionary"], runs["random"]]
    # The "gold" step switches between two golds with different scores: the real
    # one and its first half.
    lines = gold.splitlines()
    golds = [gold, b"\n".join(lines[: len(lines) // 2]) + b"\n"]
    # The "inputs" step switches D1 between the real one and the terms the gold
    # uses (the runs' other pairs are out of vocabulary then).
    ts_data = bucc_demo.test_sets[0]
    used = {line.split(b"\t")[0] for line in gold.splitlines() if line}
    d1 = ts_data.inputs["source_terms"]
    d1s = [d1, b"\n".join(t for t in d1.splitlines() if t in used) + b"\n"]
    ctx = taskdata.load_inputs(test_set)
    task_type, task_settings = ctx.task_type, ctx.settings
    stats: dict[tuple[int, int], list[rs.ItemStats]] = {}
    for (g, i), (gold_file, d1_file) in _pairs(golds, d1s):
        inputs = task_type.parse_inputs(
            {**ts_data.inputs, "source_terms": d1_file}, task_settings
        )
        parsed = task_type.parse_gold({"gold": gold_file}, inputs, task_settings)
        stats[g, i] = []
        for data in files:
            [run] = task_type.parse_phase_run(data, "r.tsv", [inputs], task_settings)
            report = task_type.score(run, parsed, inputs, task_settings)
            stats[g, i].append(
                task_type.item_statistics(
                    ScoreReport(
                        metrics={}, payload=report.payload, detail=report.detail
                    )
                )
            )
    assert stats[0, 0] != stats[1, 0] and stats[0, 0] != stats[0, 1]
    return {
        "phase": phase,
        "test_set": test_set,
        "private": private_test_set,
        "users": [participant, outsider],
        "files": files,
        "stats": stats,
        "margin": ranking.ladder_margin,
        "golds": golds,
        "d1s": d1s,
        "data": {**ts_data.inputs, **ts_data.gold},
    }


def _pairs(golds, d1s):  # noqa: ANN001, ANN202
    return [((g, i), (a, b)) for g, a in enumerate(golds) for i, b in enumerate(d1s)]


def _ever_released(history: dict[int, list[tuple[str, int]]], stats, margin):  # noqa: ANN001, ANN202
    """Every run the Ladder releases at some step of each team's history (in commit
    order), on the current gold's statistics (``stats[file]``)."""
    ever: set[int] = set()
    for runs in history.values():
        scored = [(pk, stats[file]) for pk, file in runs]
        ever |= {int(s.shown) for s in rs.ladder(scored, margin=margin)}
    return ever


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=st.lists(OPS, min_size=1, max_size=7))
# The sequences behind the defects found on main, always tried: the overall ranking
# and the final-run fallback showing a withheld score, hiding releasing the next run,
# and a replaced gold restarting the Ladder.
@example(ops=[("submit", 0, 0), ("submit", 1, 0), ("refresh",), ("reveal",)])
@example(
    ops=[("submit", 0, 0), ("submit", 1, 0), ("refresh",), ("hide", 0), ("refresh",)]
)
@example(
    ops=[
        ("submit", 2, 0),
        ("gold",),
        ("submit", 0, 0),
        ("refresh",),
        ("work",),
        ("refresh",),
    ]
)
# Issue 28: a figure drawn while a run was shown, served after the Ladder stopped
# showing it; the bins of a withheld run; a hidden run on a cached board.
@example(
    ops=[
        ("submit", 0, 0),
        ("refresh",),
        ("analyses",),
        ("submit", 2, 0),
        ("refresh",),
        ("submit", 1, 1),
        ("analyses",),
        ("hide", 0),
    ]
)
# Issue 28: an upload started before the team's released run but committed after
# it, then gold changed for real and the runs rescored and replayed on it.
@example(
    ops=[
        ("submit", 0, 0),
        ("refresh",),
        ("late", 2, 0),
        ("refresh",),
        ("gold",),
        ("work",),
        ("refresh",),
        ("analyses",),
    ]
)
# Issue 41: inputs replaced and files deleted on either test set; on main the runs
# kept the scores of the old D1, and of the deleted gold.
@example(
    ops=[
        ("submit", 2, 0),
        ("inputs", 0),
        ("drop", "gold"),
        ("work",),
        ("refresh",),
        ("inputs", 1),
        ("drop", "gold"),
        ("drop", "target_terms"),
        ("work",),
    ]
)
def test_the_public_never_sees_a_score_the_ladder_has_not_released(world, ops):
    phase, test_set = world["phase"], world["test_set"]
    # Nothing cached by an earlier example is read (each example's changes are
    # rolled back, the bump is not).
    boardcache.bump([test_set.pk, world["private"].pk])
    with transaction.atomic():
        history: dict[int, list[tuple[str, int]]] = {}
        runs: list[Submission] = []
        current = 0  # which of world["golds"] is stored
        d1 = [0, 0]  # which of world["d1s"] each test set has
        for op in ops:
            if op[0] in ("submit", "late"):
                user = world["users"][op[2]]
                started = None
                if op[0] == "late":
                    mine = [r for r in runs if r.submitter_id == user.pk]
                    if mine:
                        started = min(r.created_at for r in mine) - timedelta(hours=1)
                sub = scored_by_the_job(
                    phase, user, world["files"][op[1]], f"meth-{len(runs)}-zq", started
                )
                runs.append(sub)
                history.setdefault(op[2], []).append((str(sub.pk), op[1]))
                # The team's history, as the Ladder reads it, is the commit order.
                placed = Submission.objects.filter(team=sub.team).order_by(
                    "created_at", "pk"
                )
                assert [str(pk) for pk in placed.values_list("pk", flat=True)] == [
                    pk for pk, _ in history[op[2]]
                ], (ops, op)
            elif op[0] in ("hide", "unhide", "final") and runs:
                sub = runs[op[1] % len(runs)]
                sub.refresh_from_db()
                user = world["users"][0 if sub.team.name == "A" else 1]
                if op[0] == "final":
                    try:
                        finals.set_final(submission=sub, user=user, final=True)
                    except finals.ChoiceRefused:
                        pass
                else:
                    hiding.set_hidden(submission=sub, user=user, hidden=op[0] == "hide")
            elif op[0] == "gold":
                current = 1 - current
                datasets.store_file(
                    test_set=test_set,
                    role="gold",
                    filename="g.tsv",
                    data=world["golds"][current],
                )
            elif op[0] in ("inputs", "drop"):
                _change_files(world, op, d1)
            elif op[0] == "work":
                # The rescoring worker, finishing the latest runs first.
                for sub in Submission.objects.filter(
                    phase=phase, status=Submission.Status.QUEUED
                ).order_by("-created_at", "-pk"):
                    rescored(sub, figures=False)
            elif op[0] == "refresh":
                jobs.refresh_statistics(test_set.pk)
            elif op[0] == "reveal":
                datasets.reveal(test_set=world["private"])
            elif op[0] == "analyses":
                competition_jobs.refresh_analyses(test_set.pk)
            test_set.refresh_from_db()
            world["private"].refresh_from_db()
            public = _public_runs(phase, test_set)
            stats = world["stats"][current, d1[0]]
            ever = _ever_released(history, stats, world["margin"])
            assert public <= ever, (ops, op)
            _scores_rest_on_current_data(phase, (ops, op))
            _surfaces_show_only_the_board(phase, test_set, runs, (ops, op))
        never = [r for r in runs if r.pk not in ever]
        _package_holds_nothing_withheld(phase, test_set, never, ops)
        transaction.set_rollback(True)


def _change_files(world, op, d1: list[int]) -> None:  # noqa: ANN001
    """Replace a test set's D1 (``inputs``), or delete or store again the private
    test set's gold or D2 (``drop``), as the console stores and the admin deletes."""
    if op[0] == "inputs":
        ts = [world["test_set"], world["private"]][op[1]]
        d1[op[1]] = 1 - d1[op[1]]
        data = world["d1s"][d1[op[1]]]
        datasets.store_file(test_set=ts, role="source_terms", filename="d1", data=data)
        return
    ts, role = world["private"], op[1]
    stored = ts.files.filter(role=role).first()
    if stored is not None:
        stored.delete()
        return
    # Gold is checked against the inputs: a missing D2 is stored first.
    for missing in ("target_terms", role):
        if not ts.files.filter(role=missing).exists():
            data = world["data"][missing]
            datasets.store_file(test_set=ts, role=missing, filename=missing, data=data)


def _scores_rest_on_current_data(phase, where) -> None:  # noqa: ANN001
    """A scored run's evaluations are on every test set that can score it, each on
    its current data version; no evaluation is on a test set that cannot."""
    test_sets = taskdata.phase_test_sets(phase)
    ready = {ts.pk: ts.gold_version for ts in taskdata.scorable(test_sets)}
    evaluations = Evaluation.objects.filter(submission__phase=phase)
    assert not evaluations.exclude(test_set_id__in=ready).exists(), where
    for sub in Submission.objects.filter(phase=phase, status="scored"):
        versions = dict(sub.evaluations.values_list("test_set_id", "gold_version"))
        assert versions == ready, where


def _names(runs) -> set[str]:  # noqa: ANN001
    return {r.method_name for r in runs}


def _section(page: str, test_set) -> str:  # noqa: ANN001
    """The public test set's part of the leaderboard page."""
    start = page.index(f'id="testset-{test_set.pk}"')
    return page[start : page.index("</section>", start)]


def _surfaces_show_only_the_board(phase, test_set, runs, where) -> None:  # noqa: ANN001
    """What anonymous visitors get of the public test set (the page with its board
    fragment, the CSV and, before reveal, LaTeX exports, the API's leaderboard, every
    figure's SVG, data CSV and export) names no run its public board does not show
    now (the board read from the JSON export), and its bins count no run they do not
    list."""
    client = Client()
    task = phase.task.slug
    data = client.get(reverse("competitions:leaderboard-json", args=[task, phase.slug]))
    board = {
        row["run"]
        for ts in data.json()["test_sets"]
        if ts["test_set"] == test_set.slug
        for row in ts["rows"]
    }
    off_board = _names(r for r in runs if r.pk not in board)
    texts = {}
    page = client.get(
        reverse("competitions:leaderboard-detail", args=[task, phase.slug])
    ).content.decode()
    texts["page"] = _section(page, test_set)
    export = reverse("api:leaderboard-export", args=[task, phase.slug, "csv"])
    rows = list(csv.reader(io.StringIO(client.get(export).content.decode())))
    texts["csv"] = repr([r for r in rows[1:] if test_set.slug in r])
    api = client.get(reverse("api:api-v1:leaderboard-detail", args=[task, phase.slug]))
    assert api.status_code == 200, where
    texts["api"] = repr(
        [b for b in api.json()["test_sets"] if b["test_set"] == test_set.slug]
    )
    if not world_private_revealed(phase):
        # The LaTeX export holds every test set's table: before reveal only the
        # public test set's is there for the public.
        tex = reverse("api:leaderboard-export", args=[task, phase.slug, "tex"])
        texts["tex"] = client.get(tex).content.decode()
    for artefact in TaskArtefact.objects.filter(test_set=test_set):
        for name, url in (
            ("svg", reverse("competitions:testset-plot", args=[test_set.pk, artefact.key, "svg"])),
            ("csv", reverse("competitions:testset-plot-data", args=[test_set.pk, artefact.key])),
            ("export", reverse("api:figure-export", args=[test_set.pk, artefact.key, "svg"])),
        ):  # fmt: skip
            response = client.get(url)
            if response.status_code == 200:
                body = (
                    b"".join(response.streaming_content)
                    if response.streaming
                    else response.content
                )
                texts[f"{artefact.key} {name}"] = body.decode()
    for surface, text in texts.items():
        assert not {n for n in off_board if n in text}, (where, surface)
    if "<h3>Analysis</h3>" in texts["page"]:
        bins = TaskArtefact.objects.get(test_set=test_set, key="analysis").public_data
        counted = sum(b["n"] * b["size"] for b in bins["bins"])
        assert counted == sum(sum(b["found"]) for b in bins["bins"]), where
        assert len(bins["columns"]) == bins["n_runs"], where


def world_private_revealed(phase) -> bool:  # noqa: ANN001
    return phase.test_sets.filter(visibility="private", revealed=True).exists()


def _package_holds_nothing_withheld(phase, test_set, never, where) -> None:  # noqa: ANN001
    """The package (public once every private test set is revealed), drawn by the
    worker as in production: its public test set's files name no run the Ladder
    never released."""
    url = reverse("rankings:package", args=[phase.task.slug, phase.slug])
    response = Client().get(url)
    if response.status_code == 404:  # a private test set is not revealed
        return
    if response.status_code == 202:  # being prepared: the worker's job
        package.prepare(phase_id=phase.pk)
        response = Client().get(url)
    assert response.status_code == 200, where
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        for name in archive.namelist():
            if test_set.slug not in name:
                continue
            text = archive.read(name).decode("utf-8", "replace")
            assert not {n for n in _names(never) if n in text}, (where, name)
