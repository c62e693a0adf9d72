"""A finished demo campaign for the archive tests: the demo task of a type (or
the two-track demo), every run scored by the scoring job, the analyses and
statistics refreshed by their jobs, the Ladder on, one run hidden by the
organisers, an announcement posted; and what an anonymous visitor reads of it."""

from __future__ import annotations

from evalhub.competitions import jobs
from evalhub.competitions.models import SharedTask, Submission, TestSet
from evalhub.competitions.services import phase_settings
from evalhub.competitions.services.data import demo
from evalhub.competitions.services.runs import hiding
from evalhub.console.services import people
from evalhub.rankings import jobs as ranking_jobs
from tests import run_figures
from tests.competitions.crawl import comparable, crawl

TRACKS = "tracks"


def finished_campaign(kind: str) -> SharedTask:
    if kind == TRACKS:
        task = demo.seed_tracks_demo()
    else:
        (task,) = demo.seed_demo(slugs=[kind])
    assert task is not None
    organiser = task.organisers.get()
    for phase in task.phases.all():
        phase_settings.write(phase=phase, key="ranking", values={"ladder": True})
    runs = Submission.objects.filter(phase__task=task).order_by("created_at", "pk")
    for run in runs:
        jobs.score_submission(run.pk)
    run_figures.draw_pending()  # the figure jobs the scoring jobs send
    hidden = runs.filter(is_baseline=False).last()
    hiding.set_hidden_by_organiser(
        task=task, user=organiser, submission_ids=[hidden.pk], hidden=True
    )
    people.post_announcement(task=task, author=organiser, text="Results are final.")
    refresh(task)
    return SharedTask.objects.get(pk=task.pk)


def refresh(task: SharedTask) -> None:
    """The refresh jobs a worker runs after the runs were scored: the statistics
    (the Ladder's decisions), then the analyses of the runs the boards show."""
    for test_set in TestSet.objects.filter(phase__task=task):
        ranking_jobs.refresh_statistics(test_set.pk)
        jobs.refresh_analyses(test_set.pk)


def public_face(client, task: SharedTask) -> dict[str, tuple]:  # noqa: ANN001
    """Every page, export, figure, figure data, package and API answer an anonymous
    visitor reaches from the home page, the task page, its teams' pages and the
    API's addresses of the task, its phases and its runs."""
    starts = ["/", task.get_absolute_url(), "/api/tasks", f"/api/tasks/{task.slug}"]
    for phase in task.phases.all():
        starts.append(f"/api/tasks/{task.slug}/phases/{phase.slug}/leaderboard")
    for run in Submission.objects.filter(phase__task=task):
        starts += [f"/api/runs/{run.pk}", f"/teams/{run.team_id}/", f"/runs/{run.pk}/"]
    return crawl(client, starts)


def organiser_package(client, task: SharedTask) -> dict[str, tuple]:  # noqa: ANN001
    """Each phase's overview-paper package as its organiser downloads it, its
    figures drawn by the worker's job first (the public gets it once the results
    are revealed: ``public_face``)."""
    client.force_login(task.organisers.get())
    found = {}
    try:
        for phase in task.phases.all():
            ranking_jobs.prepare_package(phase.pk)
            url = f"/rankings/tasks/{task.slug}/{phase.slug}/package.zip"
            response = client.get(url)
            found[url] = (response.status_code, comparable(response.content))
    finally:
        client.logout()
    return found
