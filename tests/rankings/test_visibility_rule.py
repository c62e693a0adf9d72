"""One visibility rule (issue 28): each defect found on main, replayed through the
production paths (runs scored by the scoring job, the statistics and analyses jobs,
web requests), fails on main and passes once every consumer asks
``visibility.visible``.

The Ladder the tests share (three runs scored by the job, statistics and
analyses refreshed) is built once for the module (``shared_world``); each test
changes it in its own transaction, rolled back after it, on its own copy of the
world's files."""

from __future__ import annotations

import csv
import io
import shutil

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.cache import caches
from django.urls import reverse

from evalhub.competitions import jobs as competition_jobs
from evalhub.competitions.models import Phase, Submission, TaskArtefact, Team
from evalhub.competitions.services import teams as team_service
from evalhub.competitions.services.boards import analyses, visibility
from evalhub.competitions.services.runs import submit
from evalhub.rankings import jobs
from evalhub.rankings.models import PhaseRanking
from tests import demo_world, shared_world
from tests.demo_world import (  # noqa: F401 - fixtures: the world's rows
    organiser_row,
    outsider_row,
    participant_row,
    phase_row,
    task_row,
    test_set_row,
)
from tests.rankings.test_statistics import _noisy

pytestmark = pytest.mark.django_db


def scored_by_the_job(phase, user, data: bytes, method: str, started=None):  # noqa: ANN001, ANN201
    """A run submitted as the browser does and scored by the scoring job
    (``started``: when its request started, if not now)."""
    sub = submit.submit_run(
        phase=phase,
        user=user,
        filename="run.tsv",
        data=data,
        method_name=method,
        now=started,
    )
    assert competition_jobs.score_submission(sub.pk) == "scored"
    sub.refresh_from_db()
    return sub


def ladder_runs(task, phase, test_set, demo, participant, outsider) -> dict[str, int]:  # noqa: ANN001
    """A Ladder phase: team A's first run is released, its second (better by noise
    only) is withheld; team B's run is released. Statistics and analyses are
    refreshed, as the workers do after each scored run."""
    Phase.objects.filter(pk=phase.pk).update(daily_limit=100, total_limit=100)
    phase.refresh_from_db()
    PhaseRanking.objects.create(phase=phase, ladder=True, bootstrap_samples=100)
    team_service.register(task=task, user=participant, new_team_name="A")
    team_service.register(task=task, user=outsider, new_team_name="B")
    runs = {method: files["test"] for _, method, files in demo.runs}
    gold = demo.test_sets[0].gold["gold"]
    first = scored_by_the_job(phase, participant, runs["roots only"], "first-q1")
    withheld = scored_by_the_job(
        phase, participant, _noisy(runs["roots only"], gold), "withheld-q2"
    )
    other = scored_by_the_job(phase, outsider, runs["random"], "other-q3")
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    shown = set(visibility.released(test_set).values())
    assert shown == {first.pk, other.pk}, "the noisy run must be withheld"
    competition_jobs.refresh_analyses(test_set.pk)
    return {"first": first.pk, "withheld": withheld.pk, "other": other.pk}


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker, tmp_path_factory):  # noqa: ANN001, ANN201
    """The conftest's organiser, participant, outsider, task, phase and public
    test set, and the Ladder (``ladder_runs``), built once for the module
    (``shared_world``): each test changes it in its own transaction, rolled back
    after it, and starts with a cache of its own (a test of the stale fallback
    fills it first)."""

    def build() -> dict[str, object]:
        c = demo_world.public_campaign()
        participant = demo_world.participant_user(c.users)
        outsider = demo_world.outsider_user(c.users)
        runs = ladder_runs(c.task, c.phase, c.test_set, c.demo, participant, outsider)
        return {
            **c.keys(),
            "participant": participant.pk,
            "outsider": outsider.pk,
            "ladder": runs,
        }

    folder = tmp_path_factory.mktemp("visibility") / "storage"
    yield from shared_world.kept(django_db_blocker, folder, build)


@pytest.fixture
def isolated_storage(world, settings, tmp_path):  # noqa: ANN001, ANN201
    """The world's files copied for this test: a test that replaces the gold
    deletes the old file once its change commits, and the next test reads it."""
    root = tmp_path / "storage"
    shutil.copytree(world.root, root)
    return shared_world.point_storage(settings, root, shared_world.fresh_cache_prefix())


@pytest.fixture
def ladder(world, isolated_storage, bucc_demo):  # noqa: ANN001, ANN201
    """The Ladder's runs (fresh rows) and the demo's run files by method."""
    runs = {method: files["test"] for _, method, files in bucc_demo.runs}
    return {
        name: Submission.objects.get(pk=pk)
        for name, pk in world.value["ladder"].items()
    } | {"runs": runs}


def _page(client, phase) -> str:  # noqa: ANN001
    url = reverse("competitions:leaderboard-detail", args=[phase.task.slug, phase.slug])
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def test_the_difficulty_bins_cannot_give_away_a_withheld_runs_found_pairs(
    client, ladder, phase, test_set
):
    """Main built the bins from every scored run and published the released runs'
    counts: Σ n·size[n] − Σ found was the withheld run's true positives, and the
    analysis listed the withheld run."""
    page = _page(client, phase)
    assert "<h3>Analysis</h3>" in page
    assert "withheld-q2" not in page
    analysis = TaskArtefact.objects.get(test_set=test_set, key="analysis")
    assert set(analysis.runs) == {ladder["first"].pk, ladder["other"].pk}
    data = analysis.public_data
    pairs_in_bins = sum(b["n"] * b["size"] for b in data["bins"])
    pairs_found = sum(sum(b["found"]) for b in data["bins"])
    assert pairs_in_bins == pairs_found  # nothing left over to attribute
    assert all("withheld-q2" not in label for label in data["columns"] + data["runs"])


def test_figures_stop_drawing_a_run_as_soon_as_the_ladder_stops_showing_it(
    client, ladder, phase, test_set, participant
):
    """Main kept serving the comparison figure (SVG, its data CSV, the export)
    drawn from the old board until the next redraw."""
    first = ladder["first"]
    key = f"{analyses.COMPARE_PREFIX}ap"
    svg = reverse("competitions:testset-plot", args=[test_set.pk, key, "svg"])
    data = reverse("competitions:testset-plot-data", args=[test_set.pk, key])
    export = reverse("api:figure-export", args=[test_set.pk, key, "svg"])
    label = analyses.run_label(first)
    assert label in client.get(data).content.decode()
    # The team's better run is released: the Ladder no longer shows the first one.
    better = scored_by_the_job(phase, participant, ladder["runs"]["dictionary"], "b")
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    assert first.pk not in set(visibility.released(test_set).values())
    for url in (svg, data, export):
        assert client.get(url).status_code == 404, url
    page = _page(client, phase)
    assert "withheld-q2" not in page and label not in page
    assert "being redrawn" in page
    # The redraw the stale figure asked for shows the board as it is.
    competition_jobs.refresh_analyses(test_set.pk)
    assert "being redrawn" not in _page(client, phase)
    rows = list(csv.reader(io.StringIO(client.get(data).content.decode())))
    series = {r[1] for r in rows[1:]}
    assert analyses.run_label(better) in series and label not in series


def _busy_renders(monkeypatch) -> None:  # noqa: ANN001
    """Another process is rendering every new fragment (holds its lock)."""
    default = caches["default"]
    real_add = default.add

    def busy(key, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        return False if key.endswith(":rendering") else real_add(key, *args, **kwargs)

    monkeypatch.setattr(default, "add", busy)


def test_a_just_hidden_run_is_never_served_from_the_stale_fallback(
    client,
    ladder,
    phase,
    outsider,
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    """Main served the fragment drawn before the hide while the new one rendered
    (up to 30 s)."""
    other = ladder["other"]
    assert "other-q3" in _page(client, phase)
    client.force_login(outsider)
    with django_capture_on_commit_callbacks(execute=True):
        url = reverse("competitions:run-visibility", args=[other.pk])
        assert client.post(url, {"hidden": "1"}).status_code == 302
    client.logout()
    _busy_renders(monkeypatch)
    assert "other-q3" not in _page(client, phase)


def test_a_renamed_team_is_renamed_on_every_cached_board(
    client,
    ladder,
    phase,
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    """Main kept the old name on cached boards for up to a day: nothing
    invalidated them (and the stale fallback kept it afterwards)."""
    assert ">B<" in _page(client, phase)
    team = Team.objects.get(name="B")
    with django_capture_on_commit_callbacks(execute=True):
        team.name = "Renamed-q4"
        team.save()
    page = _page(client, phase)
    assert "Renamed-q4" in page and ">B<" not in page
    with django_capture_on_commit_callbacks(execute=True):
        team.name = "Again-q5"
        team.save()
    _busy_renders(monkeypatch)
    page = _page(client, phase)
    assert "Renamed-q4" not in page


def test_an_unknown_track_is_not_found_on_the_phase_ranking(client, phase):
    """Main answered 404 on boards but silently showed every track here."""
    for name in ("ranking-detail", "leaderboard-detail", "leaderboard-json"):
        url = reverse(f"competitions:{name}", args=[phase.task.slug, phase.slug])
        assert client.get(url).status_code == 200, url
        assert client.get(url + "?track=nope").status_code == 404, url
    plot = reverse(
        "competitions:ranking-plot", args=[phase.task.slug, phase.slug, "csv"]
    )
    assert client.get(plot + "?track=nope").status_code == 404


def test_the_rule_answers_in_bulk_for_every_viewer(
    ladder, test_set, participant, outsider, organiser
):
    """The one rule: organisers see every run; the Ladder withholds from everyone
    else, the run's team included; a hidden run only for its team."""
    runs = [ladder["first"], ladder["withheld"], ladder["other"]]
    first, withheld, other = (r.pk for r in runs)
    assert visibility.visible(viewer=organiser, test_set=test_set, runs=runs) == {
        first,
        withheld,
        other,
    }
    for viewer in (AnonymousUser(), visibility.PUBLIC, participant, outsider):
        seen = visibility.visible(viewer=viewer, test_set=test_set, runs=runs)
        assert seen == {first, other}
    ladder["other"].hidden = True
    assert visibility.visible(viewer=outsider, test_set=test_set, runs=runs) == {
        first,
        other,
    }
    assert visibility.visible(viewer=participant, test_set=test_set, runs=runs) == {
        first
    }


def test_figures_are_not_served_after_the_gold_is_replaced(
    client, ladder, phase, test_set, bucc_demo
):
    """Main kept drawing the old board's runs with their AP on the replaced gold
    until the next redraw."""
    from evalhub.competitions.services.data import datasets

    key = f"{analyses.COMPARE_PREFIX}ap"
    data = reverse("competitions:testset-plot-data", args=[test_set.pk, key])
    assert client.get(data).status_code == 200
    datasets.store_file(
        test_set=test_set,
        role="gold",
        filename="gold.tsv",
        data=bucc_demo.test_sets[0].gold["gold"],
    )
    assert client.get(data).status_code == 404
    assert "first-q1" not in _page(client, phase)


def test_a_ladder_decision_is_never_undone_by_the_stale_fallback(
    client,
    ladder,
    phase,
    test_set,
    participant,
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    """Main served the fragment drawn before a Ladder decision while the new one
    rendered, with the run the Ladder no longer shows."""
    assert "first-q1" in _page(client, phase)
    better = scored_by_the_job(phase, participant, ladder["runs"]["dictionary"], "b")
    with django_capture_on_commit_callbacks(execute=True):
        assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    assert better.pk in set(visibility.released(test_set).values())
    _busy_renders(monkeypatch)
    assert "first-q1" not in _page(client, phase)


def test_replaced_gold_is_never_undone_by_the_stale_fallback(
    client,
    ladder,
    phase,
    test_set,
    bucc_demo,
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    """Main served the fragment of the old gold's board while the new one
    rendered; nothing is released on the new gold until the Ladder is replayed."""
    from evalhub.competitions.services.data import datasets

    assert "first-q1" in _page(client, phase)
    with django_capture_on_commit_callbacks(execute=True):
        datasets.store_file(
            test_set=test_set,
            role="gold",
            filename="gold.tsv",
            data=bucc_demo.test_sets[0].gold["gold"],
        )
    _busy_renders(monkeypatch)
    assert "first-q1" not in _page(client, phase)
