"""The organisers' obligations in one journey (issue 44), in real Chromium against the
live server, a real Celery worker and a real OpenID Connect provider running as a
process of its own (``tests/oidc_provider/``):

1. the organiser sets data terms and a licence on the console;
2. a newcomer signs in through the institution's provider (no password at
   evalhub), registers a team, and finds the data behind the terms: the
   ``evalhub`` CLI with her token downloads nothing and says where the terms are;
3. she accepts the terms, downloads an input file, submits a run (scored by the
   worker);
4. the organiser filters the roster to "no final run yet", writes to those teams,
   and the mail files the worker wrote reach exactly their members."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse

from evalhub import settings_blocks
from evalhub.competitions.services.runs import finals
from tests import mail_files, workers
from tests.browsers import screenshot
from tests.oidc import PASSWORD, running_provider
from tests.paths import REPO_ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _evalhub(*args: str, token: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "EVALHUB_TOKEN"}
    env["EVALHUB_TOKEN"] = token
    return subprocess.run(  # noqa: S603
        [sys.executable, "-m", "evalhub.cli", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


def _token(user) -> str:  # noqa: ANN001
    """A token made on the API-token page (a web request) by ``user``."""
    client = Client()
    client.force_login(user)
    made = client.post(reverse("api:token-list"), {"name": "cli", "scope": "submit"})
    assert made.status_code == 201, made.content[:500]
    return made.context["new_token"].secret


def test_terms_sign_in_roster_and_a_message_in_one_journey(  # noqa: PLR0913, PLR0915
    live_server,
    worker,
    monkeypatch,
    settings,
    organiser,
    participant,
    team,
    other_team,
    task,
    phase,
    test_set,
    submit_run,
    demo_run,
    tmp_path,
    screenshots,
    browser,
):  # noqa: ANN001
    from allauth.account.models import EmailAddress
    from allauth.socialaccount.models import SocialAccount

    # Alpha (alice) has chosen a final run; Mallory's (mallory) has none.
    scored = workers.scored_by(worker, submit_run(demo_run))
    finals.set_final(submission=scored, user=participant, final=True)
    for user in (participant, *other_team.members.all()):
        EmailAddress.objects.create(
            user=user, email=f"{user.username}@example.org", verified=True, primary=True
        )
    token_word = uuid.uuid4().hex[:10]
    run_file = tmp_path / "run.tsv"
    run_file.write_bytes(demo_run)
    users = [{"username": "grace", "email": "grace@uni.example", "name": "Grace"}]

    with running_provider(users, tmp_path, sites=(live_server.url,)) as provider:
        for name, value in provider.environment().items():
            monkeypatch.setenv(name, value)
        for name, value in settings_blocks.social_accounts().items():
            setattr(settings, name, value)

        # 1. The organiser's terms and licence.
        org = browser.new_context().new_page()
        org.set_default_timeout(30_000)
        org.goto(live_server.url + reverse("account_login"))
        org.get_by_label("Username").fill("org")
        org.get_by_label("Password").fill("pw-organiser-1")
        org.get_by_role("button", name="Log in").click()
        org.get_by_text("Signed in as").wait_for()
        org.goto(live_server.url + reverse("console:data-terms", args=[task.slug]))
        org.get_by_label("Licence").fill("CC-BY-4.0")
        org.get_by_label("Terms of use of the data (Markdown)").fill(
            "Use the data for **research** only."
        )
        org.get_by_role("button", name="Save").click()
        org.get_by_text("Terms version 1 is in force").wait_for()

        # 2. A newcomer signs in through her institution and registers a team.
        grace = browser.new_context().new_page()
        grace.set_default_timeout(30_000)
        grace.goto(live_server.url + reverse("account_login"))
        grace.get_by_role("button", name="University of Testing").click()
        grace.wait_for_url(provider.url.rsplit("/o", 1)[0] + "/login/**")
        grace.get_by_label("Username").fill("grace")
        grace.get_by_label("Password").fill(PASSWORD)
        grace.get_by_role("button", name="Log in").click()
        grace.get_by_text("Signed in as").wait_for()
        account = SocialAccount.objects.get().user
        grace.goto(live_server.url + task.get_absolute_url())
        grace.get_by_role("link", name="Register a team").click()
        grace.get_by_label("…or a new team name").fill("Graceful")
        grace.get_by_role("button", name="Register").click()
        grace.get_by_text("is registered").wait_for()

        # The CLI downloads nothing before the terms are accepted.
        secret = _token(account)
        folder = tmp_path / "data"
        pull = ("data", "pull", "--url", live_server.url, "--task", task.slug)
        refused = _evalhub(*pull, str(folder), token=secret)
        assert refused.returncode == 3, refused.stderr
        assert f"/tasks/{task.slug}/terms/" in refused.stderr
        assert not [p for p in folder.rglob("*") if p.is_file()]

        # 3. She accepts, downloads an input file and submits a run.
        grace.goto(live_server.url + reverse("participation:terms", args=[task.slug]))
        grace.get_by_label("I have read these terms").check()
        grace.get_by_role("button", name="Accept the terms").click()
        grace.get_by_text("You accepted the data terms of").wait_for()
        file_url = reverse(
            "competitions:testset-file", args=[test_set.pk, "source_terms"]
        )
        assert grace.request.get(live_server.url + file_url).status == 200
        done = _evalhub(*pull, str(folder), token=secret)
        assert done.returncode == 0, done.stderr
        grace.goto(
            live_server.url
            + reverse("competitions:run-submit", args=[task.slug, phase.slug])
        )
        grace.get_by_label("Method name").fill("graceful lookup")
        grace.get_by_label("Run file").set_input_files(str(run_file))
        grace.get_by_role("button", name="Submit").click()
        grace.wait_for_url("**/runs/*/")
        grace.get_by_text("Status: Scored").wait_for(timeout=180_000)

        # 4. The roster narrowed to the teams with no final run, and a message to them.
        org.goto(
            live_server.url
            + reverse("console:participants", args=[task.slug])
            + "?filter=no-final-run"
        )
        roster = org.locator("table").inner_text()
        assert "Graceful" in roster and "Mallory" in roster and "Alpha" not in roster
        assert "grace@uni.example" in roster
        screenshot(org, screenshots / "journey-roster.png", full_page=True)
        org.goto(live_server.url + reverse("console:message-create", args=[task.slug]))
        org.locator("#id_subject").fill(f"Final runs {token_word}")
        org.locator("#id_body").fill("Please **choose your final run** by Friday.")
        org.locator("#id_audience").select_option(label="No final run yet")
        org.get_by_role("button", name="Preview").click()
        org.get_by_role("button", name="Send").click()
        org.locator("#message-progress").get_by_text("Done").wait_for(timeout=90_000)
        screenshot(org, screenshots / "journey-message.png", full_page=True)

    mallory = [u.username for u in other_team.members.all()]
    assert mail_files.recipients(token_word) == sorted(
        ["grace@uni.example", *(f"{name}@example.org" for name in mallory)]
    )
    assert django_settings.EMAIL_FILE_PATH.exists()
