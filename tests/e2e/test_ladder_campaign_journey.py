"""A whole Ladder campaign run by people, none of them a site administrator, in a real
browser (Debian's Chromium driven by Playwright) against the live server and a real
Celery worker. Site staff grant a user the right to create tasks on the staff page;
that user follows the home page's "Create a task", sets up a BUCC task in the console
(phase, track, a public and a private test set with inputs and gold), switches the
Ladder on, publishes. A participant signs up with an e-mail address, verifies it by
the link in the mail file (the file backend ``manage.py up`` uses), registers a team
and submits two runs. The organiser lists the runs in the console, hides one and
downloads every run as a zip. No request of the journey goes to ``/admin/``.
Screenshots go to $EVALHUB_SCREENSHOTS (when it is set)."""

from __future__ import annotations

import io
import re
import zipfile
from datetime import timedelta

import pytest
from allauth.account.models import EmailAddress
from django.utils import timezone

from evalhub.competitions.models import SharedTask, Submission
from evalhub.rankings.models import PhaseRanking
from tests import mail_files
from tests.browsers import log_in, screenshot
from tests.page_audit import DESKTOP

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _wait(predicate, page, what: str, seconds: float = 180) -> None:  # noqa: ANN001
    """Poll ``predicate`` while the browser idles (the worker is another process)."""
    deadline = timezone.now() + timedelta(seconds=seconds)
    while timezone.now() < deadline:
        if predicate():
            return
        page.wait_for_timeout(500)
    raise AssertionError(f"timed out after {seconds} s waiting for {what}")


def _upload(page, files: dict[str, object], tmp_path) -> None:  # noqa: ANN001
    """On a test set's files page: choose each file by its label, preview, store."""
    for label, (name, data) in files.items():
        path = tmp_path / name
        path.write_bytes(data)
        page.get_by_label(label).set_input_files(str(path))
    page.get_by_role("button", name="Check and preview").click()
    page.get_by_role("heading", name="What the task type understood").wait_for()
    page.get_by_role("button", name=re.compile("^Store the")).click()
    page.get_by_text(re.compile(r"Stored \d files?\.")).wait_for()


def test_a_ladder_campaign_without_a_site_administrator(
    live_server, worker, bucc_demo, django_user_model, settings, tmp_path,
    screenshots, browser,
):  # fmt: skip
    settings.EMAIL_BACKEND = "evalhub.accounts.mail.ConsoleAndFileBackend"
    settings.EMAIL_FILE_PATH = mail = tmp_path / "mail"
    settings.SITE_URL = live_server.url  # the links in mails lead to it
    base = live_server.url
    django_user_model.objects.create_user(
        "siteadmin", password="pw-siteadmin-1", is_staff=True
    )
    carol = django_user_model.objects.create_user(
        "carol", password="pw-carol-1", email="carol@lab.example.org"
    )
    assert not carol.is_staff and not carol.is_superuser
    demo = bucc_demo.test_sets[0]
    source, target = demo.inputs["source_terms"], demo.inputs["target_terms"]
    gold = demo.gold["gold"]
    visited: list[str] = []

    def new_page():  # noqa: ANN202
        context = browser.new_context(viewport=DESKTOP, timezone_id="Europe/Paris")
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.on("request", lambda request: visited.append(request.url))
        return page

    # 1. Site staff grant carol the right to create tasks, on the staff page.
    staff = new_page()
    log_in(staff, base, "siteadmin", "pw-siteadmin-1")
    staff.get_by_role("link", name="Task creators").click()
    staff.get_by_label("User name or e-mail address").fill("carol")
    staff.get_by_role("button", name="Search").click()
    staff.get_by_role("button", name="Grant the right to carol").click()
    staff.get_by_text("The right to create tasks is granted to carol.").wait_for()
    staff.context.close()

    # 2. Carol creates a BUCC task from the home page's link.
    page = new_page()
    log_in(page, base, "carol", "pw-carol-1")
    page.get_by_role("main").get_by_role("link", name="Create a task").click()
    page.wait_for_url(f"{base}/new/task/")
    page.get_by_label("Bilingual term alignment (BUCC 2022)").check()
    page.get_by_label("Title").fill("Terms with a Ladder 2027")
    page.get_by_label("Slug").fill("ladder-2027")
    page.get_by_role("textbox", name="Description").fill("Align *terms*.")
    page.get_by_role("button", name="Create the task").click()
    page.get_by_role("heading", name="Before the task can open").wait_for()
    task = SharedTask.objects.get(slug="ladder-2027")
    assert task.owner == carol and task.state == "draft"

    # A phase open since yesterday for 30 days (its slug filled from the name).
    page.locator(".checklist").get_by_role("link", name="Add a phase").click()
    now = timezone.now().astimezone(timezone.get_default_timezone())
    page.get_by_label("Name").fill("Evaluation")
    page.get_by_label("Opens at").fill((now - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M"))  # fmt: skip
    page.get_by_label("Closes at").fill((now + timedelta(days=30)).strftime("%Y-%m-%dT%H:%M"))  # fmt: skip
    page.get_by_role("button", name="Save the phase").click()
    page.get_by_role("link", name="Edit Evaluation").wait_for()
    phase = task.phases.get()
    assert phase.slug == "evaluation" and phase.is_open()

    # A track.
    page.goto(f"{base}/tasks/{task.slug}/dashboard/phases/{phase.slug}/tracks/")
    page.get_by_label("Name").fill("Open")
    page.get_by_role("button", name="Add the track").click()
    page.get_by_role("button", name="Delete Open").wait_for()
    assert list(phase.tracks.values_list("name", flat=True)) == ["Open"]

    # Two test sets from the console's navigation: a public one and a private one,
    # each with its inputs and gold.
    page.locator("nav.console-nav").get_by_role("link", name="Test sets and gold").click()  # fmt: skip
    files = {
        "Source terms (D1)": ("src.txt", source),
        "Target terms (D2)": ("tgt.txt", target),
        "Gold dictionary (D1,2)": ("gold.tsv", gold),
    }
    for name, visibility in (("Development", "public"), ("Test", "private")):
        page.get_by_role("link", name="Add a test set").click()
        page.get_by_label("Name").fill(name)
        page.get_by_label("Visibility").select_option(visibility)
        page.get_by_role("button", name="Add the test set").click()
        page.get_by_role("heading", name=f"Files of Evaluation / {name}").wait_for()
        _upload(page, files, tmp_path)
        page.locator("nav.console-nav").get_by_role("link", name="Test sets and gold").click()  # fmt: skip
    assert [t.visibility for t in phase.test_sets.order_by("order")] == ["public", "private"]  # fmt: skip
    screenshot(page, screenshots / "campaign-testsets.png", full_page=True)

    # The Ladder on, from the console's ranking page.
    page.locator("nav.console-nav").get_by_role("link", name="Ranking").click()
    page.get_by_role("checkbox", name=re.compile("^Ladder")).check()
    page.get_by_role("button", name="Save the ranking settings").click()
    page.get_by_text("Ranking settings of Evaluation saved (Ladder)").wait_for()
    assert PhaseRanking.objects.get(phase=phase).ladder
    screenshot(page, screenshots / "campaign-ranking.png", full_page=True)

    # Published from the settings page.
    page.locator("nav.console-nav").get_by_role("link", name="Settings").click()
    page.get_by_label("State").select_option("published")
    page.get_by_role("button", name="Save the settings").click()
    page.get_by_text("The task's settings are saved.").wait_for()
    assert SharedTask.objects.get(pk=task.pk).state == "published"

    # 3. A participant signs up with an e-mail address and verifies it by the link
    # in the mail file.
    other = new_page()
    other.goto(f"{base}/accounts/signup/")
    other.get_by_label("Username").fill("dana")
    other.get_by_label("Email").fill("dana@uni.example.org")
    other.get_by_label("Password:", exact=True).fill("a-long-passphrase-44")
    other.get_by_label("Password (again)").fill("a-long-passphrase-44")
    other.get_by_role("button", name="Create account").click()
    other.get_by_text("Signed in as").wait_for()
    other.goto(
        mail_files.link(mail, "dana@uni.example.org", "/accounts/confirm-email/")
    )
    other.get_by_role("button", name="Confirm").click()
    other.get_by_text("Your e-mail address is verified").wait_for()
    dana = django_user_model.objects.get(username="dana")
    assert EmailAddress.objects.get(user=dana).verified

    # She registers a team and submits two runs on the track; the worker scores them.
    other.goto(f"{base}/tasks/{task.slug}/")
    other.get_by_role("link", name="Register a team").click()
    other.get_by_label("…or a new team name").fill("Delta")
    other.get_by_role("button", name="Register").click()
    other.get_by_text("is registered").wait_for()
    for i, (_team, method, run_files) in enumerate(bucc_demo.runs[:2]):
        run_file = tmp_path / f"run-{i}.tsv"
        run_file.write_bytes(run_files[demo.name])
        other.goto(f"{base}/tasks/{task.slug}/")
        other.get_by_role("link", name="Submit a run").click()
        other.get_by_label("Track").select_option(label="Open")
        other.get_by_label("Method name").fill(method)
        other.get_by_label("Run file").set_input_files(str(run_file))
        other.get_by_role("button", name="Submit").click()
        other.wait_for_url("**/runs/*/")
    runs = list(Submission.objects.filter(phase=phase).order_by("pk"))
    assert len(runs) == 2 and all(run.track.name == "Open" for run in runs)

    def scored() -> bool:
        assert worker.poll() is None, "the worker died"
        return all(Submission.objects.get(pk=run.pk).status == "scored" for run in runs)

    _wait(scored, page, "the worker to score both runs")

    # 4. The organiser lists the runs in the console, hides one, downloads all.
    page.goto(f"{base}/tasks/{task.slug}/dashboard/")
    page.get_by_role("link", name="Every run: filter, rescore, hide, download").click()
    page.get_by_role("heading", name=f"{task.title}: runs").wait_for()
    table = page.locator("table.console-runs")
    assert table.locator("tbody tr").count() == 2
    assert "Delta" in table.inner_text()
    hidden = runs[0]
    page.get_by_label(f"Tick run {hidden.pk}").check()
    page.get_by_label("Action").select_option(label="Hide from the public")
    page.get_by_role("button", name="Continue").click()
    page.get_by_role("button", name="Hide from the public: 1 run").click()
    page.get_by_text("1 run hidden.").wait_for()
    assert Submission.objects.get(pk=hidden.pk).hidden
    assert not Submission.objects.get(pk=runs[1].pk).hidden
    screenshot(page, screenshots / "campaign-runs.png", full_page=True)
    with page.expect_download() as caught:
        page.get_by_role("link", name="Evaluation", exact=True).click()
    archive = zipfile.ZipFile(io.BytesIO(caught.value.path().read_bytes()))
    names = archive.namelist()
    for run in runs:
        assert any(str(run.pk) in name for name in names), names

    page.context.close()
    other.context.close()
    assert visited and not [url for url in visited if "/admin/" in url]
