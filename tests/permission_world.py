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
from tests.permission_table import (  # noqa: F401  (ROLES, TABLE: read by the tests)
    ALL_200,
    CREATE_PAGE,
    GONE,
    LOGIN_FIRST,
    ORGANISER_API,
    ORGANISER_ONLY,
    ORGANISER_PAGE,
    POST_ONLY,
    ROLES,
    TABLE,
    TEAM_ONLY,
)


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
