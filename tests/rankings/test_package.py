"""The overview-paper package (issue 20): its numbers are the leaderboard's, its LaTeX
tables are what ``evalhub compare --format latex`` prints on the same files (captions
naming the test set and track), user text stays plain text, and it follows the leak
rules (organisers always; the public once every private test set is revealed; hidden
runs never). That it compiles: ``test_package_latex.py``; with tracks:
``test_package_tracks.py``."""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from django.urls import reverse

from evalhub.competitions.models import Score, SharedTask
from evalhub.competitions.services import teams
from evalhub.competitions.services.boards import analyses, boardcache, leaderboard
from evalhub.rankings import jobs
from evalhub.rankings.models import PhaseRanking, TestSetStatistics
from evalhub.rankings.services import package, package_files, statistics
from tasks import cli
from tests.rankings.helpers import compare_args, scored

pytestmark = pytest.mark.django_db

HOSTILE = [r"\input{/etc/passwd}", "_x", "=cmd()"]
HIDDEN_METHOD = "hidden-method-q7"


@pytest.fixture
def world(task, phase, test_set, private_test_set, bucc_demo, django_user_model):  # noqa: ANN001, ANN201
    """Three teams with hostile names, one run each (submission order = the demo's
    order), a hidden better run of the second team, statistics of both test sets."""
    subs, users = [], []
    for i, ((_, method, files), name) in enumerate(
        zip(bucc_demo.runs, HOSTILE, strict=True)
    ):
        user = django_user_model.objects.create_user(f"pk{i}")
        teams.register(task=task, user=user, new_team_name=name)
        subs.append(scored(phase, user, files["test"], method, figures=False))
        users.append(user)
    hidden = scored(
        phase, users[1], bucc_demo.runs[0][2]["test"], HIDDEN_METHOD, figures=False
    )
    hidden.hidden = True
    hidden.save()
    for ts in (test_set, private_test_set):
        boardcache.invalidate(test_set_id=ts.pk, refresh_statistics=False)
        assert jobs.refresh_statistics(ts.pk) == "refreshed"
    return {"subs": subs, "hidden": hidden, "users": users}


def _files(phase, user) -> dict[str, bytes]:  # noqa: ANN001
    built = package.build(phase=phase, user=user, render=True)
    return package_files.files(built)


def _reveal(test_set) -> None:  # noqa: ANN001
    test_set.revealed = True
    test_set.save()


@pytest.mark.parametrize("ladder", [False, True])
def test_numbers_equal_the_leaderboard(world, phase, test_set, organiser, ladder):  # noqa: ANN001
    if ladder:  # the public test set shows the released runs only
        PhaseRanking.objects.create(phase=phase, ladder=True)
        for ts in phase.test_sets.all():
            assert jobs.refresh_statistics(ts.pk) == "refreshed"
    built = package.build(phase=phase, user=organiser, render=True)
    assert [b.key.test_set.slug for b in built.boards] == ["public", "private"]
    for board in built.boards:
        ts = board.key.test_set
        shown = leaderboard.board(test_set=ts, include_hidden=False)
        stats = TestSetStatistics.objects.get(test_set=ts)
        assert board.statistics_current
        assert [r["run"] for r in board.runs] == [r.submission_id for r in shown.rows]
        assert shown.ladder == (ladder and ts.slug == "public")
        assert world["hidden"].pk not in [r["run"] for r in board.runs]
        for system, row in zip(board.table["systems"], shown.rows, strict=True):
            stored = dict(
                Score.objects.filter(
                    submission_id=row.submission_id, test_set=ts
                ).values_list("metric", "value")
            )
            assert system["metrics"] == {k: v for k, v, _ in row.metrics} == stored
            assert system["band"] == row.band
            assert system["interval"] == stats.data["intervals"][str(row.submission_id)]
            assert system["name"] == package.system_name(row.team, row.method_name)
        pairs = statistics.with_pairs(test_set=ts, matrix=stats.data["matrix"])
        assert board.table["p_randomisation"] == pairs["p_randomisation"]
        assert board.table["signature"] == stats.signature == shown.signature
    # The JSON holds the same numbers.
    data = json.loads(package_files.files(built)["package.json"])
    assert data["boards"][0]["table"] == json.loads(json.dumps(built.boards[0].table))


def test_latex_table_equals_evalhub_compare(  # noqa: PLR0913
    world, phase, test_set, bucc_demo, organiser, tmp_path: Path
):
    files = _files(phase, organiser)
    # The runs in submission order.
    args = compare_args(tmp_path, bucc_demo, world["subs"], test_set.gold_version)
    args += ["--title", "test set Public", "--label", "public"]
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main(args) == 0
    table = files["tables/public.tex"].decode()
    pvalues = files["pvalues/public.tex"].decode()
    assert out.getvalue() == table + "\n" + pvalues
    # The table is a paper's: booktabs, the best AP in bold, rules between bands.
    assert r"\toprule" in table and r"\textbf{" in table
    assert table.count(r"\midrule") == 3  # header + two band changes (3 bands)
    # Its caption names the test set; the primary metric is one column, with its
    # interval; the other columns are the board's defaults.
    assert (
        r"\caption[{Results on test set Public}]{Results on test set Public: " in table
    )
    assert r"\label{tab:results-public}" in table
    assert r"\caption[{Pairwise p-values on test set Public}]" in pvalues
    head = next(line for line in table.splitlines() if line.startswith("Band"))
    assert head.split(" & ") == [
        "Band",
        r"\#",
        "System",
        r"AP ($\pm$ CI)",
        "F1",
        "P@100",
        r"MAP (source) \\",
    ]
    first = next(line for line in table.splitlines() if line.startswith("1 & 1 & "))
    assert re.search(r"\\textbf\{0\.\d{4} \$\\pm\$ 0\.\d{3}\}", first), first


def test_user_text_is_plain_text(world, phase, organiser):  # noqa: ANN001
    files = _files(phase, organiser)
    for name, content in files.items():
        if name.endswith(".tex"):
            text = content.decode()
            assert r"\input{/etc/passwd}" not in text, name
            assert r"\_x" in text or name == "main.tex", name
    table = files["tables/public.tex"].decode()
    assert r"\textbackslash{}input\{/etc/passwd\} (dictionary)" in table
    systems = list(csv.DictReader(io.StringIO(files["systems.csv"].decode())))
    assert {r["team"] for r in systems} == {
        r"\input{/etc/passwd}",
        "_x",
        "'=cmd()",
    }
    pairs = list(csv.reader(io.StringIO(files["pvalues/public.csv"].decode())))
    assert "'=cmd() (random)" in {cell for row in pairs for cell in row}
    assert any(r"\_x (roots only)" in line for line in table.splitlines())


def _get(client, phase, user=None):  # noqa: ANN001, ANN202
    client.logout()
    if user is not None:
        client.force_login(user)
    return client.get(reverse("rankings:package", args=[phase.task.slug, phase.slug]))


def test_who_gets_the_package(  # noqa: PLR0913
    client, world, phase, private_test_set, organiser, django_user_model
):
    team_member = world["users"][1]
    other_task_org = django_user_model.objects.create_user("org2")
    other = SharedTask.objects.create(
        slug="other",
        title="Other",
        task_type="bilingual_term_alignment",
        state=SharedTask.State.PUBLISHED,
    )
    other.organisers.add(other_task_org)
    # Before reveal: organisers only ("not found" to everyone else).
    for user in (None, team_member, other_task_org):
        assert _get(client, phase, user).status_code == 404
    # Statistics stored before their job kept the interval chart's PDF: the
    # package waits for a worker to draw it.
    for row in TestSetStatistics.objects.filter(test_set__phase=phase):
        assert row.chart_pdf
        row.chart_pdf.delete()
    first = _get(client, phase, organiser)
    assert first.status_code == 202
    assert b"being prepared" in first.content
    assert jobs.prepare_package(phase.pk) >= 2
    done = _get(client, phase, organiser)
    assert done.status_code == 200 and done["Content-Type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(done.content)).namelist()
    assert any(n.endswith("/tables/private.tex") for n in names)
    assert any(n.endswith("/README") for n in names)
    # After reveal: everyone who sees the task; still no hidden run.
    _reveal(private_test_set)
    for user in (None, team_member, other_task_org):
        response = _get(client, phase, user)
        assert response.status_code == 200
        archive = zipfile.ZipFile(io.BytesIO(response.content))
        for name in archive.namelist():
            body = archive.read(name)
            assert HIDDEN_METHOD.encode() not in body, name
        data = json.loads(
            next(archive.read(n) for n in archive.namelist() if n.endswith(".json"))
        )
        runs = {r["run"] for b in data["boards"] for r in b["runs"]}
        assert world["hidden"].pk not in runs and len(data["boards"]) == 2
    # A draft task: organisers only, revealed or not.
    phase.task.state = SharedTask.State.DRAFT
    phase.task.save()
    assert _get(client, phase, None).status_code == 404
    assert _get(client, phase, organiser).status_code == 200


def test_hidden_runs_absent_for_organisers_too(world, phase, organiser):  # noqa: ANN001
    files = _files(phase, organiser)
    for name, content in files.items():
        assert HIDDEN_METHOD.encode() not in content, name
    readme = files["README"].decode()
    assert "not yet revealed" in readme and "Private" in readme
    assert "bilingual_term_alignment:" in readme and "bootstrap:1000" in readme


def test_links_on_leaderboard_and_dashboard(
    client, world, phase, private_test_set, organiser
):  # noqa: ANN001
    board_url = reverse(
        "competitions:leaderboard-detail", args=["bucc-test", "evaluation"]
    )
    package_url = reverse("rankings:package", args=["bucc-test", "evaluation"])
    assert package_url.encode() not in client.get(board_url).content
    _reveal(private_test_set)
    assert package_url.encode() in client.get(board_url).content
    client.force_login(organiser)
    dashboard = client.get(reverse("competitions:task-dashboard", args=["bucc-test"]))
    assert package_url.encode() in dashboard.content


def test_systems_table_has_the_feature_apps_columns(world, phase, organiser):  # noqa: ANN001
    """What a receiver of ``system_columns`` returns (fact-sheet answers, paper
    links) is a column of systems.tex / .csv and in the JSON, as plain text."""
    from evalhub.competitions import signals
    from evalhub.competitions.services.boards.systems import SystemColumn

    sub = world["subs"][0]
    seen = []

    def receiver(sender, phase, viewer, **kwargs):  # noqa: ANN001, ANN202, ARG001
        seen.append(viewer)
        key = (sub.team_id, sub.method_name)
        return [
            SystemColumn(
                key="fact:data",
                label="External data & 100%",
                on_board=True,
                values={key: "=yes {really}"},
            ),
            SystemColumn(
                key="paper",
                label="Paper",
                on_board=False,
                values={key: "Our system"},
                urls={key: "https://example.org/p?a=1&b=%20"},
            ),
        ]

    signals.system_columns.connect(receiver, dispatch_uid="test-package-columns")
    try:
        files = _files(phase, organiser)
    finally:
        signals.system_columns.disconnect(dispatch_uid="test-package-columns")
    assert seen == [organiser]
    tex = files["systems.tex"].decode()
    assert r"External data \& 100\%" in tex and r"=yes \{really\}" in tex
    assert r"Our system\newline \url{https://example.org/p?a=1&b=%20}" in tex
    rows = list(csv.DictReader(io.StringIO(files["systems.csv"].decode())))
    mine = next(r for r in rows if r["method"] == sub.method_name)
    assert mine["fact:data"] == "'=yes {really}" and mine["paper"] == "Our system"
    data = json.loads(files["package.json"])
    answers = next(s for s in data["systems"] if s["run"] == sub.pk)["columns"]
    assert answers["paper"]["url"] == "https://example.org/p?a=1&b=%20"
    assert len(rows) == 3  # team, method, track: one row per system


def test_stale_statistics_leave_bands_and_p_values_out(  # noqa: PLR0913
    world, task, phase, bucc_demo, organiser, django_user_model
):
    """A run scored since the statistics were computed: the board shows no bands,
    nor does the package (no p-value matrix; the README says why)."""
    user = django_user_model.objects.create_user("late")
    teams.register(task=task, user=user, new_team_name="Late")
    scored(phase, user, bucc_demo.runs[1][2]["test"], "late", figures=False)
    built = package.build(phase=phase, user=organiser, render=True)
    public = built.boards[0]
    shown = leaderboard.board(test_set=public.key.test_set, include_hidden=False)
    assert len(public.runs) == len(shown.rows) == 4
    assert not public.statistics_current
    assert all(row.band is None for row in shown.rows)
    assert [s["band"] for s in public.table["systems"]] == [None] * 4
    files = package_files.files(built)
    assert "pvalues/public.tex" not in files
    assert "\n-- & 1 & " in files["tables/public.tex"].decode()
    assert "being refreshed" in files["README"].decode()


def test_a_figure_that_cannot_be_drawn_is_left_out(  # noqa: PLR0913
    client, world, phase, test_set, organiser, monkeypatch
):
    """The worker's drawing fails: the package is served without those figures
    (not "being prepared" for ever), and their PDF export is "not found"."""
    from evalhub.competitions.services.boards import figure_pdfs

    analyses.refresh(test_set_id=test_set.pk)

    def broken(**kwargs):  # noqa: ANN003, ANN202, ARG001
        raise ValueError("drawing failed")

    monkeypatch.setattr(figure_pdfs, "_render_comparison_pdfs", broken)
    assert _get(client, phase, organiser).status_code == 202
    jobs.prepare_package(phase.pk)
    response = _get(client, phase, organiser)
    assert response.status_code == 200
    names = zipfile.ZipFile(io.BytesIO(response.content)).namelist()
    assert not any(n.endswith("/ap.pdf") for n in names)
    assert any(n.endswith("/public/intervals.pdf") for n in names)
    url = reverse("api:figure-export", args=[test_set.pk, "compare-ap", "pdf"])
    assert client.get(url).status_code == 404


def test_a_board_without_runs(phase, test_set, organiser):  # noqa: ANN001
    files = _files(phase, organiser)
    assert "tables/public.tex" in files and "pvalues/public.tex" not in files
    assert "being refreshed" not in files["README"].decode()
