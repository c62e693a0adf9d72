"""The console's *Runs* page (issue 29), through web requests: every run of the task
with every score for its organisers at once (a private test set before reveal, a run
the Ladder withholds), nobody else; filters, search and pages at a fixed number of
queries; the bulk actions (rescore, hide, show, download) through their confirmation
page."""

from __future__ import annotations

import csv
import io
import re
import zipfile
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from evalhub.competitions import jobs
from evalhub.competitions.models import Phase, SharedTask, Submission, TestSet
from evalhub.competitions.services.data import datasets
from evalhub.competitions.services.runs import finals, hiding, submit
from evalhub.rankings import jobs as ranking_jobs
from evalhub.rankings.models import PhaseRanking
from tests.api.fixtures import body, secret_test_set  # noqa: F401  (fixture)
from tests.rankings.helpers import scored

pytestmark = pytest.mark.django_db


def _url(task, **query) -> str:  # noqa: ANN001
    url = reverse("console:runs", args=[task.slug])
    if query:
        url += "?" + "&".join(f"{k}={v}" for k, v in query.items())
    return url


def _listed(response) -> list[int]:  # noqa: ANN001
    """The runs a page lists, in its order (their tick boxes)."""
    return [int(n) for n in re.findall(r'id="tick-(\d+)"', response.content.decode())]


def _ap(run, test_set) -> str:  # noqa: ANN001
    return f"{run.scores.get(test_set=test_set, metric='ap').value:.4f}"


@pytest.fixture
def roomy(phase):  # noqa: ANN001, ANN201
    """The phase without submission limits in the way of a test's runs."""
    Phase.objects.filter(pk=phase.pk).update(daily_limit=100, total_limit=100)
    phase.refresh_from_db()
    return phase


@pytest.fixture
def ladder_runs(task, phase, test_set, secret_test_set, bucc_demo, participant, team):  # noqa: F811
    """A Ladder phase with an unrevealed private test set (half of the gold, so its
    scores differ): the team's first run is released, its second one (worse) is
    withheld by the Ladder."""
    PhaseRanking.objects.create(phase=phase, ladder=True)
    runs = {method: files["test"] for _, method, files in bucc_demo.runs}
    first = scored(phase, participant, runs["dictionary"], "first")
    second = scored(phase, participant, runs["random"], "second")
    for ts in (test_set, secret_test_set):
        ranking_jobs.refresh_statistics(ts.pk)
    return first, second


def test_organisers_see_every_score_at_once(
    client,
    organiser,
    task,
    phase,
    test_set,
    secret_test_set,  # noqa: F811
    ladder_runs,
):
    first, withheld = ladder_runs
    board = reverse("competitions:leaderboard-detail", args=[task.slug, phase.slug])
    public = client.get(board).content.decode()
    assert _ap(first, test_set) in public
    assert _ap(withheld, test_set) not in public  # the Ladder withholds it
    for run in (first, withheld):
        assert _ap(run, secret_test_set) not in public  # not revealed
    client.force_login(organiser)
    response = client.get(_url(task))
    assert response.status_code == 200
    page = response.content.decode()
    assert _listed(response) == [withheld.pk, first.pk]  # newest first
    for run in (first, withheld):
        for ts in (test_set, secret_test_set):
            assert _ap(run, ts) in page
    assert "Secret (private)" in page  # the unrevealed test set is marked


def test_nobody_else_reaches_the_page_or_its_actions(
    client, task, phase, test_set, participant, outsider, other_team, submit_run,
    demo_run, django_user_model,
):  # fmt: skip
    run = submit_run(demo_run, method="mine")
    stranger = django_user_model.objects.create_user("org-other", is_staff=True)
    SharedTask.objects.create(
        slug="theirs", title="Theirs", task_type="term_extraction"
    ).organisers.add(stranger)
    url = _url(task)
    hide = {"action": "hide", "scope": "ticked", "run": [run.pk], "confirm": "1"}
    assert client.get(url).status_code == 302  # to the login page
    assert client.post(url, hide).status_code == 302
    for user in (participant, outsider, stranger):
        client.force_login(user)
        assert client.get(url).status_code == 404, user
        assert client.post(url, hide).status_code == 404, user
        assert client.post(url, {**hide, "action": "download"}).status_code == 404
    run.refresh_from_db()
    assert not run.hidden


def test_filters_and_search(
    client, organiser, task, roomy, test_set, participant, team, outsider,
    other_team, submit_run, demo_run,
):  # fmt: skip
    alpha_scored = submit_run(demo_run, method="dictionary lookup")
    jobs.score_submission(alpha_scored.pk)
    alpha_queued = submit_run(demo_run, method="neural v2")
    mallory = submit_run(demo_run, user=outsider, method="baseline copy")
    finals.set_final(submission=alpha_scored, user=participant, final=True)
    hiding.set_hidden(submission=mallory, user=outsider, hidden=True)
    client.force_login(organiser)
    everything = [mallory.pk, alpha_queued.pk, alpha_scored.pk]
    assert _listed(client.get(_url(task))) == everything
    cases = {
        "status=scored": [alpha_scored.pk],
        "status=queued": [mallory.pk, alpha_queued.pk],
        f"phase={roomy.slug}": everything,
        f"team={other_team.pk}": [mallory.pk],
        "hidden=yes": [mallory.pk],
        "hidden=no": [alpha_queued.pk, alpha_scored.pk],
        "final=yes": [alpha_scored.pk],
        "q=NEURAL": [alpha_queued.pk],
        "q=mallory": [mallory.pk],  # the team "Mallory's"
        f"q=%23{alpha_scored.pk}": [alpha_scored.pk],
        f"q={alpha_queued.pk}": [alpha_queued.pk],
        f"status=queued&team={team.pk}": [alpha_queued.pk],
        "q=nothing-like-it": [],
    }
    for query, expected in cases.items():
        response = client.get(f"{_url(task)}?{query}")
        assert response.status_code == 200, query
        assert _listed(response) == expected, query
    # An unknown phase is an error on the form, not a silent "everything".
    response = client.get(_url(task, phase="nope"))
    assert response.status_code == 400
    assert _listed(response) == everything
    assert "Select a valid choice" in response.content.decode()


def test_filter_by_track(
    client, organiser, task, roomy, test_set, participant, team, submit_run, demo_run
):
    from evalhub.competitions.models import Track

    for slug in ("open", "closed"):
        Track.objects.create(phase=roomy, slug=slug, name=slug.title())
    open_run = submit_run(demo_run, method="a", track="open")
    closed_run = submit_run(demo_run, method="b", track="closed")
    client.force_login(organiser)
    track = Track.objects.get(slug="closed")
    response = client.get(_url(task, track=track.pk))
    assert _listed(response) == [closed_run.pk]
    assert "Evaluation: Closed" in response.content.decode()  # the choice's label
    assert open_run.pk not in _listed(response)


def test_pages_cost_the_same_queries_whatever_the_number_of_runs(
    client, organiser, task, roomy, test_set, private_test_set, submit_run, demo_run
):
    first = submit_run(demo_run, method="m0")
    jobs.score_submission(first.pk)
    client.force_login(organiser)
    client.get(_url(task))  # the session and the organiser's tasks, once

    def queries() -> int:
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(_url(task)).status_code == 200
        return len(ctx.captured_queries)

    few = queries()
    runs = [submit_run(demo_run, method=f"m{i}") for i in range(1, 56)]
    for run in runs[-3:]:
        jobs.score_submission(run.pk)
    assert queries() == few
    newest = [r.pk for r in reversed(runs)]
    assert _listed(client.get(_url(task))) == newest[:50]
    second = client.get(_url(task, page=2))
    assert _listed(second) == newest[50:] + [first.pk]
    assert "Page 2 of 2" in second.content.decode()
    # The pages keep the filters: 52 of the 56 runs are still queued.
    filtered = client.get(_url(task, status="queued", q="m"))
    assert len(_listed(filtered)) == 50
    assert 'href="?status=queued&amp;q=m&amp;page=2"' in filtered.content.decode()
    assert len(_listed(client.get(_url(task, status="queued", q="m", page=2)))) == 2


def test_rescore_through_the_confirmation_page(
    client, organiser, task, roomy, test_set, submit_run, demo_run
):
    done = submit_run(demo_run, method="done")
    jobs.score_submission(done.pk)
    waiting = submit_run(demo_run, method="waiting")
    client.force_login(organiser)
    form = {"action": "rescore", "scope": "ticked", "run": [done.pk, waiting.pk]}
    confirm = client.post(_url(task), form)
    assert confirm.status_code == 200
    text = confirm.content.decode()
    assert "1 run will be scored again" in text
    assert "1 run of the selection cannot be rescored" in text
    done.refresh_from_db()
    assert done.status == "scored"  # nothing happens before the confirmation
    response = client.post(_url(task), {**form, "confirm": "1"}, follow=True)
    done.refresh_from_db()
    waiting.refresh_from_db()
    assert done.status == "queued" and waiting.status == "queued"
    text = response.content.decode()
    assert "1 run queued for rescoring. 1 run left as they are" in text
    assert jobs.score_submission(done.pk) == "scored"


def test_hide_and_show_through_the_confirmation_page(
    client, organiser, task, roomy, test_set, participant, outsider, other_team,
    submit_run, demo_run,
):  # fmt: skip
    ours = submit_run(demo_run, method="zz-ours-method")
    jobs.score_submission(ours.pk)
    theirs = submit_run(demo_run, user=outsider, method="zz-theirs-method")
    jobs.score_submission(theirs.pk)
    board = reverse("competitions:leaderboard-detail", args=[task.slug, "evaluation"])
    assert b"zz-ours-method" in client.get(board).content
    client.force_login(organiser)
    # Every run of team "Alpha" (the filter), not the ticked ones.
    filters = f"team={ours.team_id}"
    form = {"action": "hide", "scope": "matching", "filters": filters}
    confirm = client.post(_url(task), form)
    assert "1 run will be hidden" in confirm.content.decode()
    assert not Submission.objects.filter(hidden=True).exists()
    response = client.post(_url(task), {**form, "confirm": "1"})
    assert response.status_code == 302
    assert response.url == f"{_url(task)}?{filters}"  # back to the same filters
    ours.refresh_from_db()
    theirs.refresh_from_db()
    assert ours.hidden and not theirs.hidden
    assert "1 run hidden." in client.get(response.url).content.decode()
    client.logout()
    public = client.get(board).content
    assert b"zz-ours-method" not in public and b"zz-theirs-method" in public
    client.force_login(organiser)
    form = {"action": "show", "scope": "ticked", "run": [ours.pk, theirs.pk]}
    text = client.post(_url(task), form).content.decode()
    assert "1 run will be shown to everyone again" in text
    assert "1 run already shown stay" in text
    client.post(_url(task), {**form, "confirm": "1"})
    ours.refresh_from_db()
    assert not ours.hidden
    client.logout()
    assert b"zz-ours-method" in client.get(board).content


def test_actions_never_touch_another_tasks_runs_and_need_a_choice(
    client, organiser, task, roomy, test_set, submit_run, demo_run, django_user_model
):
    ours = submit_run(demo_run, method="ours")
    other_task = SharedTask.objects.create(
        slug="theirs", title="Theirs", task_type="bilingual_term_alignment"
    )
    other_task.organisers.add(organiser)
    client.force_login(organiser)
    # Run ids of this task, posted to the other task's page: nothing to act on.
    hide = {"action": "hide", "scope": "ticked", "run": [ours.pk], "confirm": "1"}
    response = client.post(_url(other_task), hide, follow=True)
    assert "0 runs hidden" in response.content.decode()
    ours.refresh_from_db()
    assert not ours.hidden
    response = client.post(_url(task), {"scope": "ticked", "run": [ours.pk]})
    assert response.status_code == 302
    assert "Choose an action." in client.get(response.url).content.decode()
    response = client.post(_url(task), {"action": "hide", "scope": "ticked"})
    text = client.get(response.url).content.decode()
    assert "No run is ticked" in text
    ours.refresh_from_db()
    assert not ours.hidden


def test_download_the_ticked_runs_as_a_zip(
    client, organiser, task, roomy, test_set, private_test_set, submit_run, demo_run,
    bucc_demo,
):  # fmt: skip
    runs = {}
    for method in ("one", "two", "three"):
        runs[method] = submit_run(demo_run, method=method)
        jobs.score_submission(runs[method].pk)
    client.force_login(organiser)
    ticked = [runs["one"].pk, runs["three"].pk]
    response = client.post(
        _url(task), {"action": "download", "scope": "ticked", "run": ticked}
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert "bucc-test-evaluation-runs.zip" in response["Content-Disposition"]
    archive = zipfile.ZipFile(io.BytesIO(body(response)))
    manifest = list(csv.DictReader(io.StringIO(archive.read("manifest.csv").decode())))
    assert sorted(int(r["run"]) for r in manifest) == sorted(ticked)
    for row in manifest:
        run = Submission.objects.get(pk=row["run"])
        assert archive.read(row["file"]) == demo_run
        assert f"{float(row['private:ap']):.4f}" == _ap(run, private_test_set)
    gold = bucc_demo.test_sets[0].gold["gold"]
    assert all(archive.read(n) != gold for n in archive.namelist())
    assert len(archive.namelist()) == 3  # two runs and the manifest
    # Every run of the phase: the page links to the phase's export.
    page = client.get(_url(task)).content.decode()
    assert reverse("api:runs-export", args=[task.slug, roomy.slug]) in page


def test_a_zip_holds_one_phase(
    client, organiser, task, roomy, test_set, participant, team, submit_run, demo_run,
    bucc_demo,
):  # fmt: skip
    now = timezone.now()
    trial = Phase.objects.create(
        task=task, slug="trial", name="Trial", opens_at=now - timedelta(days=1),
        closes_at=now + timedelta(days=1), order=1,
    )  # fmt: skip
    trial_set = TestSet.objects.create(phase=trial, slug="t", name="T")
    for role, data in bucc_demo.test_sets[0].inputs.items():
        datasets.store_file(test_set=trial_set, role=role, filename=role, data=data)
    ours = submit_run(demo_run, method="ours")
    other = submit.submit_run(
        phase=trial, user=participant, filename="r.tsv", data=demo_run, method_name="x"
    )
    client.force_login(organiser)
    form = {"action": "download", "scope": "ticked", "run": [ours.pk, other.pk]}
    response = client.post(_url(task), form, follow=True)
    assert response["Content-Type"].startswith("text/html")
    assert "belong to 2 phases" in response.content.decode()
