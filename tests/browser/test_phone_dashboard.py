"""The organiser's dashboard and the API-token page on a phone (390 x 844) and a
desktop (1280), in a real browser, for a task with long names everywhere (issue
43): a long title, the longest slug, a phase and test sets of long names, teams
and methods of long names, scored, queued, failed and final runs, messages and
announcements, tokens of long names. Nothing is wider than the screen, except a
table in a scroll box that says it scrolls (``page_audit.LAYOUT``)."""

from __future__ import annotations

import contextlib
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from evalhub.api.services import tokens
from evalhub.competitions.models import Phase, TestSet
from evalhub.competitions.services import recipients, teams
from evalhub.competitions.services.data import datasets
from evalhub.competitions.services.runs import submit
from evalhub.console.services import people
from evalhub.console.services import tasks as console_tasks
from evalhub.mailings.services import compose
from tasks import registry
from tests import page_audit
from tests.browsers import screenshot
from tests.rankings.helpers import scored

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LONG_SLUG = "terminology-extraction-from-comparable-corpora-2026"[:50]
LONG_TITLE = (
    "Extraction terminologique multilingue à partir de corpus comparables "
    "spécialisés : campagne d'évaluation ouverte de l'atelier TermEval"
)
LONG_WORD = "Internationalisierungsbestrebungen-Terminologieextraktion"


@pytest.fixture
def long_world(isolated_storage, django_user_model):  # noqa: ANN001, ANN201
    """A term-extraction task with the demo's data, everything named long: its
    organiser, the task, scored, queued and failed runs, a message, tokens."""
    organiser = django_user_model.objects.create_user(
        "organiser-of-the-terminology-workshop-at-the-university",
        "organiser.of.the.terminology.workshop@university.example.org",
    )
    demo = registry.get("term_extraction").demo(seed=0)
    task = console_tasks.create_task(
        user=organiser,
        data={
            "slug": LONG_SLUG,
            "task_type": "term_extraction",
            "task_settings": dict(demo.settings),
            "title": LONG_TITLE,
            "description": demo.description,
            "requires_approval": True,
            "state": "published",
            "submissions_paused": False,
            "pause_message": "",
            "max_team_size": 5,
        },
    )
    now = timezone.now()
    phase = Phase.objects.create(
        task=task, slug="final-evaluation-on-the-held-out-domains",
        name=f"Final evaluation on the held-out domains {LONG_WORD}",
        opens_at=now - timedelta(days=1), closes_at=now + timedelta(days=9),
        daily_limit=20, total_limit=50, max_final_runs=2,
    )  # fmt: skip
    for order, ts in enumerate(demo.test_sets):
        test_set = TestSet.objects.create(
            phase=phase, slug=f"{ts.name}-held-out-domain-with-a-long-slug"[:50],
            name=f"{ts.name}: {LONG_WORD} (held-out domain)", order=order,
            visibility=ts.visibility,
        )  # fmt: skip
        for role, data in {**ts.inputs, **ts.gold}.items():
            datasets.store_file(test_set=test_set, role=role, filename=role, data=data)
    members = []
    for i, (_, method, files) in enumerate(demo.runs):
        user = django_user_model.objects.create_user(f"participant-{i}-{LONG_WORD}")
        registration = teams.register(
            task=task,
            user=user,
            new_team_name=f"Laboratoire {LONG_WORD} de l'Université numéro {i}",
        )
        teams.decide_registration(
            registration=registration, user=organiser, approve=True
        )
        members.append(user)
        data = next(iter(files.values()))
        scored(phase, user, data, f"{method} with {LONG_WORD}")
        submit.submit_run(
            phase=phase, user=user, filename="queued.tsv", data=data,
            method_name=f"queued {LONG_WORD} {method}",
        )  # fmt: skip
    # Rejected (recorded, with its problems): not UTF-8.
    bad = (LONG_WORD * 8).encode() + b"\xff\n"
    with contextlib.suppress(submit.SubmissionInvalid):
        submit.submit_run(
            phase=phase, user=members[0], filename=f"{LONG_WORD}.tsv", data=bad,
            method_name=f"broken {LONG_WORD}",
        )  # fmt: skip
    waiting = django_user_model.objects.create_user(f"applicant-{LONG_WORD}")
    teams.register(  # awaiting approval: the dashboard's table of registrations
        task=task, user=waiting, new_team_name=f"Équipe {LONG_WORD} en attente"
    )
    people.post_announcement(
        task=task, author=organiser, text=f"Deadline moved: {LONG_WORD} " * 4
    )
    compose.post(
        task=task, author=organiser, subject=f"Reminder {LONG_WORD} " * 2,  # 134 of 150 characters
        body=f"Please choose your final runs. {LONG_WORD}", key=recipients.ALL,
    )  # fmt: skip
    tokens.create(
        user=organiser,
        name=f"task pushes from the CI of the organisers {LONG_WORD}",
        scope="organise",
        tasks=[task],
    )
    return task, organiser


def test_the_dashboard_and_tokens_fit_a_phone(
    live_server, long_world, screenshots, browser
):  # noqa: ANN001
    task, organiser = long_world
    client = Client()
    client.force_login(organiser)
    context = browser.new_context(viewport=page_audit.PHONE, timezone_id="UTC")
    context.add_cookies(
        [
            {
                "name": "sessionid",
                "value": client.cookies["sessionid"].value,
                "url": live_server.url,
            }
        ]
    )
    page = context.new_page()
    page.set_default_timeout(30_000)
    urls = [
        reverse("competitions:task-dashboard", args=[task.slug]),
        reverse("api:token-list"),
    ]
    problems = []
    for size in (page_audit.PHONE, page_audit.DESKTOP):
        page.set_viewport_size(size)
        for url in urls:
            page.goto(live_server.url + url)
            assert LONG_TITLE in page.content() or url.endswith("/tokens/")
            page.evaluate(
                "() => new Promise(r => requestAnimationFrame("
                "() => requestAnimationFrame(r)))"
            )
            name = url.strip("/").replace("/", "-")
            screenshot(
                page, screenshots / f"{name}-{size['width']}.png", full_page=True
            )
            problems += [
                f"{url} at {size['width']}: {p}"
                for p in page.evaluate(page_audit.LAYOUT)
            ]
    # A new token, shown once, on the phone: its secret and the command to use it.
    page.set_viewport_size(page_audit.PHONE)
    page.goto(live_server.url + reverse("api:token-list"))
    page.get_by_label("Name").fill(f"organiser pushes {LONG_WORD}"[:100])
    page.get_by_label("Organise chosen tasks").check()
    page.get_by_label(LONG_TITLE).check()
    page.get_by_role("button", name="Create token").click()
    page.locator("#new-token").wait_for()
    screenshot(page, screenshots / "account-tokens-new-390.png", full_page=True)
    problems += [f"new token at 390: {p}" for p in page.evaluate(page_audit.LAYOUT)]
    assert not problems, "\n".join(problems)
