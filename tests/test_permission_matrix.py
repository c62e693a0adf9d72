"""Permission matrix: every URL pattern of the project (found by walking the URL
resolver, so new URLs are covered automatically) and every API endpoint, requested as
anonymous, participant (the run's team), other team and organiser; and on an MT
probing task every annotation URL and the gold / private-score URLs, with the
annotator role added.

- Patterns listed in ``EXPECTED`` must answer exactly the expected status per role.
- Every pattern (listed or not) must never answer 5xx, and no response to a
  non-organiser may contain a gold line or a score of a private (unrevealed) test set.
- Admin pages: only staff get past the login redirect.
"""

from __future__ import annotations

import itertools
import re

import pytest
from django.apps import apps
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from evalhub.api.models import ApiToken
from evalhub.factsheets.models import Question
from tests.annotations.fixtures import (  # noqa: F401  (fixtures)
    annotator,
    mt_demo,
    mt_runs,
    mt_task,
    mt_test_set,
    submit_scored,
    without_plots,
)
from tests.api.fixtures import (  # noqa: F401  (fixtures)
    analysed,
    body,
    gold_forms,
    private_score_forms,
    scored,
    secret_test_set,
    tokens,
)

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "participant", "other_team", "organiser")
ALL_200 = (200, 200, 200, 200)
LOGIN_FIRST = (302, 200, 200, 200)
POST_ONLY = (302, 405, 405, 405)
ORGANISER_ONLY = (404, 404, 404, 200)
TEAM_ONLY = (404, 200, 404, 200)
#: Organiser pages behind login: anonymous users are sent to log in first.
ORGANISER_PAGE = (302, 404, 404, 200)
GONE = (404, 404, 404, 404)
#: The organiser API: a token is required, and it must be an organiser's.
ORGANISER_API = (401, 403, 403, 200)
#: Responses that may quote gold because they are the team's own run file.
OWN_RUN_FILES = {"competitions:run-file"}
TEXT_TYPES = ("text/", "application/json", "application/x-tex", "image/svg")


def _walk(patterns, prefix: str = "", namespaces: tuple[str, ...] = ()):  # noqa: ANN001, ANN202
    for p in patterns:
        if isinstance(p, URLResolver):
            ns = namespaces + ((p.namespace,) if p.namespace else ())
            yield from _walk(p.url_patterns, prefix + str(p.pattern), ns)
        elif isinstance(p, URLPattern) and p.name:
            yield ":".join(namespaces + (p.name,)), prefix + str(p.pattern), p


class World:
    """The objects the URLs are filled with."""

    def __init__(self, run, test_set, secret, bucc_demo, community):  # noqa: ANN001
        self.run = run
        self.community = community
        self.converters: dict[str, str] = {}
        self.test_sets = {"public": test_set, "secret": secret}
        self.token = ApiToken.objects.get(user__username="alice")
        compare = test_set.task_artefacts.filter(key__startswith="compare-").first()
        assert compare is not None
        self.compare_key = compare.key
        self.artefacts = {
            name: run.evaluations.get(test_set=ts).artefacts.first()
            for name, ts in self.test_sets.items()
        }

    def variants(self, name: str, route: str, pattern: URLPattern):  # noqa: ANN201
        """(label, kwargs) for every way to fill the pattern's parameters."""
        params = list(pattern.pattern.regex.groupindex)
        self.converters = {
            k: type(v).__name__
            for k, v in getattr(pattern.pattern, "converters", {}).items()
        }
        choices: dict[str, list[tuple[str, object]]] = {}
        for param in params:
            choices[param] = self._choices(name, route, param)
        keys = list(choices)
        for combo in itertools.product(*(choices[k] for k in keys)):
            label = ",".join(
                f"{k}={lab}" for k, (lab, _) in zip(keys, combo, strict=True)
            )
            yield label, {k: v for k, (_, v) in zip(keys, combo, strict=True)}

    def _choices(self, name: str, route: str, param: str) -> list[tuple[str, object]]:
        ts = self.test_sets
        community = self.community
        if param == "pk" and route.startswith("teams/invitations/"):
            return [("invitation", community["invitation"].pk)]
        if param == "pk" and route.startswith("teams/"):
            return [("team", self.run.team_id)]
        if param == "token" and route.startswith("teams/join/"):
            return [("link", community["link"].token)]
        if param == "pk" and route.startswith("notifications/"):
            return [("notification", community["notification"].pk)]
        if param == "pk" and "/registrations/" in route:
            return [("registration", community["registration"].pk)]
        # The questions' pages; "runs/<pk>/factsheet/" takes a run (below).
        if param == "pk" and "/factsheet/" in route and not route.startswith("runs/"):
            return [("question", community["question"].pk)]
        if param == "slug":
            return [("task", "bucc-test")]
        if param == "phase":
            return [("phase", "evaluation")]
        if param == "section":  # the organiser API's phase settings
            return [("ranking", "ranking")]
        if param in ("run_id",) or (param == "pk" and route.startswith("runs/")):
            return [("run", self.run.pk)]
        if param == "pk" and "tokens/" in route:
            return [("token", self.token.pk)]
        if param == "test_set" and "/testsets/<test_set>/" in route:
            return [(k, v.slug) for k, v in ts.items()]  # the organiser API's
        if param in ("pk", "test_set"):
            return [(k, v.pk) for k, v in ts.items()]
        if param == "artefact":
            return [(k, a.pk) for k, a in self.artefacts.items()]
        if param == "key":
            return [("compare", self.compare_key)]
        if param in ("fmt", "ext"):
            return [(f, f) for f in ("csv", "json", "tex", "svg", "png", "pdf")]
        if param == "role":
            return [("inputs", "source_terms"), ("gold", "gold")]
        if name.startswith("admin:"):
            return self._admin_choice(name, param)
        # A parameter this matrix does not know yet (someone's new URL): a run for a
        # number, a word otherwise; the generic rules (no 5xx, no leak) still apply.
        if self.converters.get(param) == "IntConverter":
            return [("run?", self.run.pk)]
        return [("word?", "x")]

    def _admin_choice(self, name: str, param: str) -> list[tuple[str, object]]:
        if param == "app_label":
            return [("app", "competitions")]
        if param == "object_id":
            match = re.match(r"admin:(\w+?)_(\w+)_\w+$", name)
            try:
                model = apps.get_model(match.group(1), match.group(2))
            except (AttributeError, LookupError, ValueError):
                model = None
            obj = model.objects.order_by("pk").first() if model else None
            return [("obj", str(obj.pk) if obj else "1")]
        if param == "content_type_id":
            return [("ct", "1")]
        if param == "object_id" or param == "id":
            return [("id", "1")]
        return [(param, "1")]


TABLE: dict[str, tuple[int, ...]] = {
    # Accounts (django-allauth, evalhub/accounts/): the entrance pages send a
    # signed-in user on, the account's own pages ask for a login first.
    "account_login": (200, 302, 302, 302),
    "account_signup": (200, 302, 302, 302),
    "account_logout": (302, 200, 200, 200),  # a page to confirm; logging out is a POST
    "account_inactive": ALL_200,
    "account_reauthenticate": LOGIN_FIRST,
    "account_email": LOGIN_FIRST,
    "account_email_verification_sent": ALL_200,
    "account_change_password": LOGIN_FIRST,
    # Users who have a password are sent to change it instead.
    "account_set_password": (302, 302, 302, 302),
    "account_reset_password": ALL_200,
    "account_reset_password_done": ALL_200,
    # An unknown key or token: a page saying the link is invalid or has expired.
    "account_confirm_email": ALL_200,
    "account_reset_password_from_key": ALL_200,
    "account_reset_password_from_key_done": ALL_200,
    # Logins by code are off: no code was asked for, back to the login page.
    "account_confirm_login_code": (302, 302, 302, 302),
    "api:api-v1:openapi-json": ALL_200,
    "api:api-v1:openapi-view": ALL_200,
    "api:api-v1:task-list": ALL_200,
    "api:api-v1:task-detail": ALL_200,
    "api:api-v1:leaderboard-detail": ALL_200,
    "api:api-v1:run-list": (401, 200, 200, 200),
    "api:api-v1:run-create": (401, 200, 200, 200),  # GET on the shared path
    "api:api-v1:run-detail": ALL_200,
    "api:api-v1:api-root": GONE,
    # The organiser API (tests/api/test_organiser_api.py adds revoked tokens,
    # organisers of other tasks and every POST and DELETE).
    "api:api-v1:bundle-import": (405, 405, 405, 405),  # POST only
    "api:api-v1:task-run-list": ORGANISER_API,
    "api:api-v1:task-run-file": ORGANISER_API,
    "api:api-v1:phase-runs-zip": ORGANISER_API,
    # ("ranking" is the section; PUT in tests/api/test_organiser_api.py.)
    "api:api-v1:phase-settings-detail": ORGANISER_API,
    "api:api-v1:phase-settings-change": ORGANISER_API,
    "api:api-v1:gold-draft-create": (405, 405, 405, 405),  # POST only
    # No such draft ("x"): not found, for the organiser too.
    "api:api-v1:gold-draft-detail": (401, 403, 403, 404),
    "api:token-list": LOGIN_FIRST,
    "api:token-revoke": POST_ONLY,
    "api:runs-export": ORGANISER_ONLY,
    "competitions:task-list": ALL_200,
    "competitions:task-detail": ALL_200,
    "competitions:task-register": LOGIN_FIRST,
    "competitions:run-submit": LOGIN_FIRST,
    "competitions:leaderboard-detail": ALL_200,
    "competitions:leaderboard-json": ALL_200,
    "competitions:run-detail": ALL_200,
    "competitions:run-status": ALL_200,
    "competitions:run-file": TEAM_ONLY,
    "competitions:run-rescore": POST_ONLY,
    "competitions:run-item-detail": ORGANISER_ONLY,
    "competitions:task-dashboard": ORGANISER_PAGE,
    "competitions:task-rescoring": ORGANISER_PAGE,
    "competitions:registration-decide": POST_ONLY,
    # Creating tasks and site staff's page of who may (the world's organiser is a
    # staff user; tests/competitions/test_task_creators.py covers granted users and
    # every EVALHUB_TASK_CREATORS value).
    "competitions:bundle-import": ORGANISER_PAGE,
    "competitions:creator-list": ORGANISER_PAGE,
    "competitions:baseline-create": (302, 404, 404, 200),
    "teams:team-list": LOGIN_FIRST,
    "teams:team-create": POST_ONLY,
    "teams:team-detail": ALL_200,
    "teams:invitation-create": POST_ONLY,
    "teams:team-leave": POST_ONLY,
    # An invitation of the participant's team to a fifth user: its team sees it.
    "teams:invitation-detail": (302, 200, 404, 404),
    "teams:invitation-accept": POST_ONLY,
    "teams:invitation-decline": POST_ONLY,
    "teams:invitation-revoke": POST_ONLY,
    "teams:invitation-join": LOGIN_FIRST,
    "notifications:notification-list": LOGIN_FIRST,
    "notifications:notification-bell": LOGIN_FIRST,
    "notifications:notification-read-all": POST_ONLY,
    "notifications:notification-open": POST_ONLY,
    "notifications:mail-settings": LOGIN_FIRST,
    "competitions:run-final": POST_ONLY,
    "competitions:run-visibility": POST_ONLY,
    "factsheets:question-list": ORGANISER_PAGE,
    "factsheets:question-edit": ORGANISER_PAGE,
    "factsheets:question-delete": POST_ONLY,
    "factsheets:question-move": POST_ONLY,
    "factsheets:team-sheets": LOGIN_FIRST,  # each team its own sheets
    "factsheets:run-sheet": (302, 200, 404, 200),
    "factsheets:run-paper": (302, 200, 404, 404),  # the team's (after closing)
    # No runs chosen: the page explains how to choose 2 to 5.
    "competitions:runs-compare": (400, 400, 400, 400),
    # A private test set is not revealed: organisers only; their first request is
    # answered "being prepared" (202) while a worker draws the figures as PDF.
    "rankings:package": (404, 404, 404, 202),
    # Tracks of a phase (console/views/tracks.py); the world's phase has no track
    # "x": not found even for its organisers (tests/console/test_tracks_pages.py
    # covers a real track role by role).
    "console:track-list": ORGANISER_PAGE,
    "console:track-edit": (302, 404, 404, 404),
    "console:track-move": POST_ONLY,
    "console:track-delete": POST_ONLY,
    "console:track-limits": POST_ONLY,
    # The console's test sets and gold (tests/console/test_gold_permissions.py adds
    # organisers of other tasks and every POST).
    "console:testsets": ORGANISER_PAGE,
    "console:testset-create": ORGANISER_PAGE,
    "console:testset-edit": ORGANISER_PAGE,
    "console:testset-files": ORGANISER_PAGE,
    "console:testset-visibility": ORGANISER_PAGE,
    "console:testset-reveal": ORGANISER_PAGE,
    "console:gold-release": ORGANISER_PAGE,
    # No such draft ("x"): not found, for the organiser too.
    "console:gold-draft": (302, 404, 404, 404),
    "console:gold-draft-discard": POST_ONLY,
    # The organiser console (task set-up, phases, people, previews).
    "console:task-create": ORGANISER_PAGE,
    "console:markdown-preview": POST_ONLY,
    "console:task-settings": ORGANISER_PAGE,
    "console:archive-export": POST_ONLY,
    "console:archive-status": ORGANISER_PAGE,
    # Only once a worker has written one (tests/console/test_archive_export.py).
    "console:task-archive": (302, 404, 404, 404),
    "console:phases": ORGANISER_PAGE,
    "console:phase-create": ORGANISER_PAGE,
    "console:phase-edit": ORGANISER_PAGE,
    "console:phase-move": POST_ONLY,
    "console:organisers": ORGANISER_PAGE,
    "console:organiser-remove": POST_ONLY,
    "console:announcements": ORGANISER_PAGE,
    "console:preview-participant": ORGANISER_PAGE,
    "console:preview-public": ORGANISER_PAGE,
    "console:preview-leaderboard": ORGANISER_PAGE,
    # The evaluation after the campaign (tests/console/test_after_campaign_page.py
    # adds organisers of other tasks, co-organisers and the POSTs).
    "console:after-campaign": ORGANISER_PAGE,
    "console:after-campaign-close": POST_ONLY,
    # Every run of the task (console/views/runs.py; tests/console/test_runs_page.py
    # adds organisers of other tasks and the bulk actions' POSTs).
    "console:runs": ORGANISER_PAGE,
    "console:ranking": ORGANISER_PAGE,
}


def expected(name: str, label: str) -> tuple[int, ...] | None:
    """Statuses (anonymous, participant, other team, organiser), or None: only the
    generic rules apply (someone else's new URL, admin pages)."""
    secret = "secret" in label
    fmt = re.search(r"(?:fmt|ext)=(\w+)", label)
    fmt = fmt.group(1) if fmt else None
    if name == "api:leaderboard-export":
        return ALL_200 if fmt in ("csv", "json", "tex") else GONE
    if name == "api:figure-export":
        if fmt not in ("svg", "pdf"):
            return GONE
        return ORGANISER_ONLY if secret else ALL_200
    if name in ("competitions:run-plot", "competitions:testset-plot"):
        if fmt not in ("svg", "png"):
            return None  # these views answer any extension with the PNG
        return ORGANISER_ONLY if secret else ALL_200
    if name == "competitions:testset-plot-data":
        return ORGANISER_ONLY if secret else ALL_200
    if name == "competitions:testset-file":
        return ORGANISER_ONLY if "role=gold" in label else ALL_200
    return TABLE.get(name)


KNOWN = {
    "api:leaderboard-export",
    "api:figure-export",
    "competitions:run-plot",
    "competitions:testset-plot",
    "competitions:testset-plot-data",
    "competitions:testset-file",
}


def _clients(client_class, users, secrets):  # noqa: ANN001, ANN202
    """role -> (client for pages, extra headers for the API)."""
    out = {}
    for role in ROLES:
        c = client_class()
        if role != "anonymous":
            c.force_login(users[role])
        out[role] = (
            c,
            {"HTTP_AUTHORIZATION": f"Bearer {secrets[role]}"}
            if role != "anonymous"
            else {},
        )
    return out


@pytest.fixture
def community(analysed, participant, django_user_model):  # noqa: ANN001, ANN201, F811
    """Teams, invitations and notifications around the participant's scored run."""
    from evalhub.notifications.models import Notification
    from evalhub.notifications.services import events
    from evalhub.teams.services import teams

    django_user_model.objects.create_user("bob", password="pw-bob-1")
    team = analysed.team
    events.run_scored(submission_id=analysed.pk)
    return {
        "invitation": teams.invite(team=team, inviter=participant, who="bob"),
        "link": teams.invite_link(team=team, inviter=participant),
        "notification": Notification.objects.get(recipient=participant),
        "registration": team.registrations.get(),
        "question": Question.objects.create(
            task=team.registrations.get().task,
            key="external-data",
            label="External data used?",
            kind="yes_no",
            required=True,
            on_board=True,
        ),  # fmt: skip
    }


def test_every_url_pattern_for_every_role(
    analysed,  # noqa: F811
    test_set,
    secret_test_set,  # noqa: F811
    tokens,  # noqa: F811
    participant,
    outsider,
    organiser,
    other_team,
    bucc_demo,
    community,
):
    world = World(analysed, test_set, secret_test_set, bucc_demo, community)
    users = {"participant": participant, "other_team": outsider, "organiser": organiser}
    clients = _clients(Client, users, tokens)
    leaks = gold_forms(bucc_demo) + private_score_forms(
        analysed, test_set, secret_test_set
    )
    # A form followed by a digit is another number (a figure's data holds
    # thousands: 0.48763... is not the score 0.4876). Compiled once: there are
    # more forms than ``re`` keeps compiled, so ``re.search`` compiled each one
    # again for every response.
    patterns = [(f, re.compile(re.escape(f) + rb"(?!\d)")) for f in leaks]
    failures: list[str] = []
    seen_names: set[str] = set()
    seen_routes: set[str] = set()
    for name, route, pattern in _walk(get_resolver().url_patterns):
        seen_names.add(name)
        if route in seen_routes:  # e.g. GET and POST of one API path
            continue
        seen_routes.add(route)
        for label, kwargs in world.variants(name, route, pattern):
            try:
                url = reverse(name, kwargs=kwargs)
            except Exception as exc:  # noqa: BLE001 - reported below
                failures.append(f"{name} {label}: cannot reverse ({exc})")
                continue
            want = expected(name, label)
            for index, role in enumerate(ROLES):
                c, headers = clients[role]
                response = c.get(url, **(headers if url.startswith("/api/") else {}))
                status = response.status_code
                content = body(response)
                where = f"{role} GET {url} ({name})"
                if status >= 500:
                    failures.append(f"{where}: {status}")
                if want is not None and status != want[index]:
                    failures.append(f"{where}: {status}, expected {want[index]}")
                if name.startswith("admin:") and role != "organiser":
                    if name != "admin:login" and status == 200:
                        failures.append(f"{where}: admin page for a non-staff user")
                if role == "organiser" or name in OWN_RUN_FILES:
                    continue
                if not response.get("Content-Type", "").startswith(TEXT_TYPES):
                    continue
                if response.get("Content-Type", "").startswith("image/svg"):
                    found = [f for f in gold_forms(bucc_demo) if f in content]
                else:
                    found = [f for f, form in patterns if form.search(content)]
                if found:
                    failures.append(f"{where}: leaks {found[:2]}")
    # The leak forms are detectable: the organiser's board carries private scores.
    c, headers = clients["organiser"]
    board = c.get(
        reverse("api:api-v1:leaderboard-detail", args=["bucc-test", "evaluation"]),
        **headers,
    )
    assert any(f in board.content for f in leaks)
    missing = (set(TABLE) | KNOWN) - seen_names
    assert not missing, f"URL names in the matrix but not in the project: {missing}"
    assert not failures, "\n".join(failures)


def test_state_changing_posts_by_role(
    client,
    scored,  # noqa: F811
    tokens,  # noqa: F811
    participant,
    outsider,
    organiser,  # noqa: F811
):
    rescore = reverse("competitions:run-rescore", args=[scored.pk])
    token = ApiToken.objects.get(user=participant)
    revoke = reverse("api:token-revoke", args=[token.pk])
    assert client.post(rescore).status_code == 302  # to the login page
    assert client.post(revoke).status_code == 302
    client.force_login(outsider)
    assert client.post(rescore).status_code == 404
    assert client.post(revoke).status_code == 404  # not their token
    client.force_login(participant)
    assert client.post(rescore).status_code == 404  # organisers only
    client.force_login(organiser)
    assert client.post(revoke).status_code == 404
    assert client.post(rescore).status_code == 302
    token.refresh_from_db()
    assert token.is_active


def test_community_posts_by_role(
    client,
    task,
    phase,
    scored,  # noqa: F811
    community,
    participant,
    outsider,
    organiser,
    demo_run,
):
    """Teams, invitations, notifications, approvals and baselines: each POST by the
    wrong role changes nothing."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from evalhub.competitions.models import Registration, Submission
    from evalhub.notifications.models import Notification
    from evalhub.teams.models import Invitation

    team, invitation = scored.team, community["invitation"]
    notification, registration = community["notification"], community["registration"]
    decide = reverse(
        "competitions:registration-decide", args=[task.slug, registration.pk]
    )
    baseline = reverse("competitions:baseline-create", args=[task.slug, phase.slug])
    member_only = [
        reverse("teams:invitation-create", args=[team.pk]),
        reverse("teams:team-leave", args=[team.pk]),
        reverse("teams:invitation-revoke", args=[invitation.pk]),
        reverse("teams:invitation-accept", args=[invitation.pk]),
        reverse("teams:invitation-decline", args=[invitation.pk]),
        reverse("notifications:notification-open", args=[notification.pk]),
    ]

    def run_file():  # noqa: ANN202
        return SimpleUploadedFile("b.tsv", demo_run)

    for url in [decide, baseline, *member_only]:
        assert client.post(url).status_code == 302, url  # to the login page
    client.force_login(outsider)
    for url in member_only:
        assert client.post(url, {"who": "mallory", "link": "1"}).status_code == 404
    assert client.post(decide, {"decision": "reject"}).status_code == 404
    assert (
        client.post(baseline, {"method_name": "x", "run": run_file()}).status_code
        == 404
    )
    client.post(reverse("notifications:notification-read-all"))
    client.force_login(participant)
    assert client.post(decide, {"decision": "reject"}).status_code == 404
    assert (
        client.post(baseline, {"method_name": "x", "run": run_file()}).status_code
        == 404
    )
    # Nothing changed.
    invitation.refresh_from_db()
    notification.refresh_from_db()
    registration.refresh_from_db()
    assert invitation.status == Invitation.Status.PENDING
    assert Invitation.objects.filter(team=team).count() == 2
    assert not notification.read
    assert registration.status == Registration.Status.APPROVED
    assert list(team.members.all()) == [participant]
    assert not Submission.objects.filter(is_baseline=True).exists()
    assert not Notification.objects.filter(recipient=outsider).exists()
    # The organiser may.
    client.force_login(organiser)
    assert client.post(decide, {"decision": "reject"}).status_code == 302
    registration.refresh_from_db()
    assert registration.status == Registration.Status.REJECTED


def test_console_posts_by_role(
    client, task, phase, team, participant, outsider, organiser, django_user_model
):
    """Every console POST by a participant, an outsider or another task's organiser
    (staff) changes nothing; anonymous users are sent to log in."""
    from evalhub.competitions.models import SharedTask
    from evalhub.console.models import Announcement, ArchiveExport
    from evalhub.rankings.models import PhaseRanking

    stranger = django_user_model.objects.create_user("org-other", is_staff=True)
    SharedTask.objects.create(
        slug="theirs", title="Theirs", task_type="term_extraction"
    ).organisers.add(stranger)
    slug = task.slug
    posts = {
        reverse("console:task-settings", args=[slug]): {"title": "pwned"},
        reverse("console:phase-create", args=[slug]): {"name": "x", "slug": "x"},
        reverse("console:phase-edit", args=[slug, phase.slug]): {"name": "x"},
        reverse("console:phase-move", args=[slug, phase.slug]): {"direction": "up"},
        reverse("console:organisers", args=[slug]): {"username": "mallory"},
        reverse("console:organiser-remove", args=[slug, organiser.pk]): {},
        reverse("console:announcements", args=[slug]): {"text": "hello"},
        reverse("console:archive-export", args=[slug]): {},
        reverse("console:ranking", args=[slug, phase.slug]): {
            "ladder": "on",
            "ladder_margin": "1",
            "bootstrap_samples": "1000",
            "seed": "0",
            "alpha": "0.05",
        },  # fmt: skip
    }
    for url, data in posts.items():
        assert client.post(url, data).status_code == 302, url  # to the login page
    for user in (participant, outsider, stranger):
        client.force_login(user)
        for url, data in posts.items():
            assert client.post(url, data).status_code == 404, (user, url)
    task.refresh_from_db()
    phase.refresh_from_db()
    assert task.title == "BUCC test task" and phase.name == "Evaluation"
    assert list(task.phases.values_list("slug", flat=True)) == ["evaluation"]
    assert list(task.organisers.all()) == [organiser]
    assert not Announcement.objects.exists()
    assert not ArchiveExport.objects.exists()
    assert not PhaseRanking.objects.exists()


# ---- MT probing: annotation URLs, gold and private scores, with the annotator role ----

ANNOTATION_ROLES = ("anonymous", "participant", "other_team", "annotator", "organiser")
ANNOTATE = (404, 404, 404, 200, 200)
ANNOTATE_POST = (404, 404, 404, 302, 302)
MANAGE = (404, 404, 404, 404, 200)
MANAGE_POST = (404, 404, 404, 404, 302)
#: (url name, method, expected per ANNOTATION_ROLES); every ``annotations:`` URL name
#: must be here. ``{public}``/``{secret}`` are the two probe test sets.
ANNOTATION_TABLE: tuple[tuple[str, str, str, tuple[int, ...]], ...] = (
    ("annotations:annotation-list", "GET", "", ANNOTATE),
    ("annotations:annotation-detail", "GET", "public", ANNOTATE),
    ("annotations:annotation-detail", "GET", "secret", ANNOTATE),
    ("annotations:annotation-scores", "GET", "public", ANNOTATE),
    ("annotations:annotation-scores", "GET", "secret", ANNOTATE),
    ("annotations:judgement-create", "POST", "public", ANNOTATE_POST),
    ("annotations:judgement-create", "POST", "secret", ANNOTATE_POST),
    ("annotations:judgement-undo", "POST", "public", ANNOTATE_POST),
    ("annotations:probe-set-build", "GET", "task", MANAGE),
    ("annotations:probe-set-save", "POST", "task", MANAGE_POST),
    ("annotations:annotator-list", "GET", "task", MANAGE),
    ("competitions:testset-file", "GET", "public,references", MANAGE),
    ("competitions:testset-file", "GET", "secret,references", MANAGE),
    ("competitions:testset-file", "GET", "public,probes", (200,) * 5),
    ("competitions:run-item-detail", "GET", "run,public", MANAGE),
    ("competitions:run-item-detail", "GET", "run,secret", MANAGE),
    ("competitions:task-dashboard", "GET", "task", (302, 404, 404, 404, 200)),
    ("competitions:leaderboard-detail", "GET", "phase", (200,) * 5),
    ("competitions:leaderboard-json", "GET", "phase", (200,) * 5),
    ("competitions:run-detail", "GET", "run", (200,) * 5),
    ("admin:index", "GET", "", (302, 302, 302, 302, 200)),
    # Last: the organiser takes the annotator role away.
    ("annotations:annotator-remove", "POST", "annotator", MANAGE_POST),
)


@pytest.fixture
def secret_probe_set(mt_test_set, mt_demo):  # noqa: ANN001, ANN201, F811
    """A private probe test set: the same probes, no references for the low
    frequency class (so its provisional primary scores differ from the public
    one's and a leak is detectable)."""
    from evalhub.competitions.models import TestSet
    from evalhub.competitions.services.data import datasets

    data = mt_demo.test_sets[0]
    secret = TestSet.objects.create(
        phase=mt_test_set.phase, slug="secret", name="Secret", visibility="private"
    )
    refs = data.gold["references"].decode().splitlines(keepends=True)
    kept = "".join(r for r in refs if "-low-" not in r.partition("\t")[0])
    files = {**data.inputs, "references": kept.encode()}
    for role, content in files.items():
        datasets.store_file(
            test_set=secret, role=role, filename=f"{role}.tsv", data=content
        )
    return secret


@pytest.fixture
def probe_world(secret_probe_set, mt_runs, annotator):  # noqa: ANN001, ANN201, F811
    return mt_runs


def _probe_url(name: str, target: str, world: dict) -> str:
    if name in ("annotations:annotation-list", "admin:index"):
        return reverse(name)
    if name in ("annotations:probe-set-build", "annotations:probe-set-save"):
        return reverse(name, args=[world["task"].slug])
    if name in ("annotations:annotator-list", "competitions:task-dashboard"):
        return reverse(name, args=[world["task"].slug])
    if name == "annotations:annotator-remove":
        return reverse(name, args=[world["task"].slug, world["annotator_row"].pk])
    if name.startswith("competitions:leaderboard"):
        return reverse(name, args=[world["task"].slug, world["phase"].slug])
    if name == "competitions:run-detail":
        return reverse(name, args=[world["run"].pk])
    if name == "competitions:testset-file":
        ts, role = target.split(",")
        return reverse(name, args=[world[ts].pk, role])
    if name == "competitions:run-item-detail":
        return reverse(name, args=[world["run"].pk, world[target.split(",")[1]].pk])
    return reverse(name, args=[world[target].pk])


def test_annotation_gold_and_private_urls_for_every_role_with_annotators(
    without_plots,  # noqa: F811
    probe_world,
    mt_test_set,  # noqa: F811
    secret_probe_set,
    mt_demo,  # noqa: F811
    participant,
    annotator,  # noqa: F811
    organiser,
    django_user_model,
):
    from evalhub.annotations.models import Annotator
    from evalhub.competitions.services import teams
    from tests.annotations.test_annotators import SHARED, _gold_forms

    task = mt_test_set.phase.task
    other = django_user_model.objects.create_user("olga")
    teams.register(task=task, user=other, new_team_name="Olga's team")
    users = {
        "participant": participant,  # team of the "wide" run
        "other_team": other,
        "annotator": annotator,
        "organiser": organiser,
    }
    world = {
        "task": task,
        "phase": mt_test_set.phase,
        "public": mt_test_set,
        "secret": secret_probe_set,
        "run": probe_world["wide"],
        "annotator_row": Annotator.objects.get(user=annotator),
    }
    leaks = _gold_forms(mt_demo, probe_world)
    secret_scores: set[bytes] = set()
    for run in probe_world.values():
        secret_scores |= set(private_score_forms(run, mt_test_set, secret_probe_set))
    assert secret_scores, "the private test set's scores must differ to be detectable"
    names = {n for n, _, _ in _walk(get_resolver().url_patterns)}
    annotation_names = {n for n in names if n.startswith("annotations:")}
    assert annotation_names <= {row[0] for row in ANNOTATION_TABLE}
    post = {"probe": SHARED[0], "key": SHARED[1], "tag": "w", "token": "x"}
    failures: list[str] = []
    for name, method, target, want in ANNOTATION_TABLE:
        url = _probe_url(name, target, world)
        for index, role in enumerate(ANNOTATION_ROLES):
            c = Client()
            if role != "anonymous":
                c.force_login(users[role])
            response = c.post(url, post) if method == "POST" else c.get(url)
            where = f"{role} {method} {url} ({name})"
            if response.status_code != want[index]:
                failures.append(
                    f"{where}: {response.status_code}, expected {want[index]}"
                )
            if role == "organiser":
                continue
            content = body(response)
            found = [f for f in leaks if f in content]
            found += [f for f in secret_scores if f in content]
            if found:
                failures.append(f"{where}: leaks {found[:2]}")
    # The forms are detectable: the organiser sees gold and the private scores.
    c = Client()
    c.force_login(organiser)
    gold = body(
        c.get(_probe_url("competitions:testset-file", "secret,references", world))
    )
    assert any(f in gold for f in leaks)
    scores = body(c.get(_probe_url("annotations:annotation-scores", "secret", world)))
    assert any(f in scores for f in secret_scores)
    assert not Annotator.objects.filter(user=annotator).exists()  # removed last
    assert not failures, "\n".join(failures)


HIDDEN_MARKER = "zz-hidden-run-marker"
#: Pages of one run: not found for anyone but its team and the organisers once hidden.
RUN_PAGES = {
    "competitions:run-detail",
    "competitions:run-status",
    "competitions:run-file",
    "competitions:run-plot",
    "competitions:run-item-detail",
    "api:api-v1:run-detail",
}


def _public_score_forms(run, test_set) -> list[bytes]:  # noqa: ANN001
    task_type = run.phase.task.type
    out = set()
    for s in run.scores.filter(test_set=test_set):
        if s.value is None or task_type.metric(s.metric).count:
            continue
        out |= {repr(s.value), f"{s.value:.4f}"}
    return sorted(f.encode() for f in out if len(f) >= 6)


def test_a_hidden_run_role_by_role(
    analysed,  # noqa: F811
    test_set,
    secret_test_set,  # noqa: F811
    tokens,  # noqa: F811
    participant,
    outsider,
    organiser,
    other_team,
    bucc_demo,
    community,
):
    """Every URL × role with the only run hidden by its team: anonymous users and
    the other team never get its method, its public scores or its pages; its team
    and the organisers still do."""
    from evalhub.competitions.services.runs import finals

    Submission = type(analysed)
    Submission.objects.filter(pk=analysed.pk).update(method_name=HIDDEN_MARKER)
    analysed.refresh_from_db()
    finals.set_hidden(submission=analysed, user=participant, hidden=True)
    world = World(analysed, test_set, secret_test_set, bucc_demo, community)
    users = {"participant": participant, "other_team": outsider, "organiser": organiser}
    clients = _clients(Client, users, tokens)
    markers = [HIDDEN_MARKER.encode()] + _public_score_forms(analysed, test_set)
    failures: list[str] = []
    seen_routes: set[str] = set()
    for name, route, pattern in _walk(get_resolver().url_patterns):
        if route in seen_routes or name.startswith("admin:"):
            continue
        seen_routes.add(route)
        for label, kwargs in world.variants(name, route, pattern):
            try:
                url = reverse(name, kwargs=kwargs)
            except Exception:  # noqa: BLE001, S112 - the matrix above reports it
                continue
            if name == "competitions:runs-compare":
                url += f"?runs={analysed.pk}&runs={analysed.pk + 1000}"
            want = expected(name, label)
            for index, role in enumerate(ROLES):
                c, headers = clients[role]
                response = c.get(url, **(headers if url.startswith("/api/") else {}))
                status = response.status_code
                where = f"{role} GET {url} ({name})"
                if status >= 500:
                    failures.append(f"{where}: {status}")
                if role in ("participant", "organiser"):
                    if name in RUN_PAGES and want and status != want[index]:
                        failures.append(f"{where}: {status}, expected {want[index]}")
                    continue
                if name in RUN_PAGES and status != 404:
                    failures.append(f"{where}: {status} for a hidden run")
                content = body(response)
                found = [m for m in markers if m in content]
                if found:
                    failures.append(f"{where}: shows the hidden run {found[:2]}")
    # The markers are detectable: the team's task page and the organisers' board.
    c, _ = clients["participant"]
    assert HIDDEN_MARKER.encode() in c.get("/tasks/bucc-test/").content
    c, _ = clients["organiser"]
    args = ["bucc-test", "evaluation"]
    seen = (
        c.get(reverse("competitions:leaderboard-detail", args=args)).content
        + c.get(reverse("competitions:leaderboard-json", args=args)).content
    )
    assert all(m in seen for m in markers)
    assert not failures, "\n".join(failures)


def test_final_run_choices_by_role(
    client,
    scored,  # noqa: F811
    participant,
    outsider,
    organiser,
    other_team,
):
    """Only the run's team chooses or hides; the choice shows in the organisers'
    exports, not in the public's."""
    final = reverse("competitions:run-final", args=[scored.pk])
    visibility = reverse("competitions:run-visibility", args=[scored.pk])
    export = reverse("competitions:leaderboard-json", args=["bucc-test", "evaluation"])
    assert client.post(final, {"final": "1"}).status_code == 302  # to the login page
    for user in (outsider, organiser):
        client.force_login(user)
        assert client.post(final, {"final": "1"}).status_code == 404
        assert client.post(visibility, {"hidden": "1"}).status_code == 404
    scored.refresh_from_db()
    assert not scored.final_selected and not scored.hidden
    client.force_login(participant)
    assert client.post(final, {"final": "1"}).status_code == 302
    assert b'"final"' not in client.get(export).content
    client.force_login(organiser)
    assert b'"final": true' in client.get(export).content
    client.logout()
    assert b'"final"' not in client.get(export).content
