"""Permission matrix, GET side: every URL pattern of the project (found by walking
the URL resolver, so new URLs are covered automatically) and every API endpoint,
requested as anonymous, participant (the run's team), other team and organiser;
then again with the only run hidden by its team.

- Patterns listed in ``TABLE`` (tests/permission_world.py) must answer exactly the
  expected status per role.
- Every pattern (listed or not) must never answer 5xx, and no response to a
  non-organiser may contain a gold line or a score of a private (unrevealed) test set.
- Admin pages: only staff get past the login redirect.

The POSTs role by role are in tests/test_permission_matrix_posts.py; the MT probing
task's annotation, gold and private-score URLs with the annotator role in
tests/test_permission_matrix_annotations.py.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import get_resolver, reverse

from tests.api.fixtures import (  # noqa: F401  (fixtures)
    analysed,
    body,
    gold_forms,
    private_score_forms,
    scored,
    secret_test_set,
    tokens,
)
from tests.permission_world import (  # noqa: F401  (community: a fixture)
    KNOWN,
    ROLES,
    TABLE,
    World,
    _clients,
    _walk,
    community,
    expected,
)

pytestmark = pytest.mark.django_db

#: Responses that may quote gold because they are the team's own run file.
OWN_RUN_FILES = {"competitions:run-file"}
#: Images that state scores (the boards' badges): searched for private scores
#: too (a figure's data holds thousands of numbers, so others only for gold).
SCORE_IMAGES = {"embeds:board-badge", "embeds:overall-badge"}
TEXT_TYPES = ("text/", "application/json", "application/x-tex", "image/svg")


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
    community,  # noqa: F811
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
                if (
                    response.get("Content-Type", "").startswith("image/svg")
                    and name not in SCORE_IMAGES
                ):
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
    community,  # noqa: F811
):
    """Every URL × role with the only run hidden by its team: anonymous users and
    the other team never get its method, its public scores or its pages; its team
    and the organisers still do."""
    from evalhub.competitions.services.runs import hiding

    Submission = type(analysed)
    Submission.objects.filter(pk=analysed.pk).update(method_name=HIDDEN_MARKER)
    analysed.refresh_from_db()
    hiding.set_hidden(submission=analysed, user=participant, hidden=True)
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
