"""The world the permission matrix requests URLs in (a helper module, not a test
module): the roles and the statuses they expect, the walk over the project's URL
patterns, the ``World`` that fills their parameters, ``TABLE``/``expected``/
``KNOWN`` (the statuses per URL name and role), ``_clients`` (one client per role)
and the ``community`` fixture (teams, invitations and notifications around the
participant's scored run).

Used by tests/test_permission_matrix.py, tests/test_permission_matrix_posts.py and
tests/test_permission_matrix_annotations.py. The ``community`` fixture asks for
``analysed`` (tests/api/fixtures.py): a module importing ``community`` imports that
fixture (and its own dependencies) too.
"""

from __future__ import annotations

import itertools
import re

import pytest
from django.apps import apps
from django.urls import URLPattern, URLResolver

from evalhub.api.models import ApiToken
from evalhub.factsheets.models import Question

ROLES = ("anonymous", "participant", "other_team", "organiser")
ALL_200 = (200, 200, 200, 200)
LOGIN_FIRST = (302, 200, 200, 200)
POST_ONLY = (302, 405, 405, 405)
ORGANISER_ONLY = (404, 404, 404, 200)
TEAM_ONLY = (404, 200, 404, 200)
#: Organiser pages behind login: anonymous users are sent to log in first.
ORGANISER_PAGE = (302, 404, 404, 200)
GONE = (404, 404, 404, 404)
#: Creating tasks: a signed-in user without the right is told how to get it (403).
CREATE_PAGE = (302, 403, 403, 200)
#: The organiser API: a token is required, and it must be an organiser's.
ORGANISER_API = (401, 403, 403, 200)


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
        # A parameter of an including pattern (allauth's oidc/<provider_id>/).
        params += [p for p in re.findall(r"\(\?P<(\w+)>", route) if p not in params]
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
        if param == "provider_id":  # an OpenID Connect provider: none configured
            return [("provider", "uni")]
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
    # Sign-in through another site (accounts/urls.py): a provider that is not
    # configured (none is here) has no page; the linked accounts' page is one's own.
    "github_login": GONE,
    "github_callback": GONE,
    "orcid_login": GONE,
    "orcid_callback": GONE,
    "openid_connect_login": GONE,
    "openid_connect_callback": GONE,
    "socialaccount_connections": LOGIN_FIRST,
    "socialaccount_signup": (302, 302, 302, 302),  # no sign-in under way: to login
    "socialaccount_login_cancelled": ALL_200,
    "socialaccount_login_error": (401, 401, 401, 401),
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
    # ("ranking" is the section; PUT in tests/api/test_ranking_settings_api.py.)
    "api:api-v1:phase-settings-detail": ORGANISER_API,
    "api:api-v1:phase-settings-change": ORGANISER_API,
    "api:api-v1:test-data-draft-create": (405, 405, 405, 405),  # POST only
    # No such draft ("x"): not found, for the organiser too.
    "api:api-v1:test-data-draft-detail": (401, 403, 403, 404),
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
    "competitions:bundle-import": CREATE_PAGE,
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
    # A compare figure of no runs chosen: not found (the page's figures are tested
    # role by role in tests/competitions/test_compare_figures.py).
    "competitions:runs-compare-figure": GONE,
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
    "console:task-create": CREATE_PAGE,
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
    # Messages to teams (evalhub/mailings; tests/mailings/test_permissions.py adds
    # co-organisers, organisers of other tasks, staff and the POSTs). No such
    # message: not found, for the organiser too.
    "console:messages": ORGANISER_PAGE,
    "console:message-create": ORGANISER_PAGE,
    "console:message-detail": (302, 404, 404, 404),
    "console:message-progress": (302, 404, 404, 404),
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
    # Data terms and the roster (tests/participation/test_permissions.py adds
    # co-organisers, organisers of other tasks, staff, the POSTs and a task with
    # terms).
    "participation:terms": ALL_200,
    "participation:profile": LOGIN_FIRST,
    "console:data-terms": ORGANISER_PAGE,
    "console:participants": ORGANISER_PAGE,
    "console:participants-export": ORGANISER_PAGE,
    "api:api-v1:roster": ORGANISER_API,
    "api:api-v1:roster-csv": ORGANISER_API,
    # The boards' embeds and badges: the public's, whoever asks (a private test
    # set's say its scores are private; tests/embeds/ and the leak tests).
    "embeds:board-embed": ALL_200,
    "embeds:overall-embed": ALL_200,
    "embeds:board-badge": ALL_200,
    "embeds:overall-badge": ALL_200,
    "console:embeds": ORGANISER_PAGE,
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
    if name in ("competitions:testset-file", "api:api-v1:testset-file-download"):
        return ORGANISER_ONLY if "role=gold" in label else ALL_200
    return TABLE.get(name)


KNOWN = {
    "api:leaderboard-export",
    "api:figure-export",
    "competitions:run-plot",
    "competitions:testset-plot",
    "competitions:testset-plot-data",
    "competitions:testset-file",
    "api:api-v1:testset-file-download",
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
def community(analysed, participant, django_user_model):  # noqa: ANN001, ANN201
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
