"""Permission matrix of every page and endpoint the participation app adds, for
every role: anonymous, the participant (a team of the task), another team, a
co-organiser, an organiser of another task, site staff, and the organiser. No
address, roster row or terms acceptance reaches anyone but the task's organisers;
their pages answer 404 (the API 401/403) and their POSTs change nothing."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.test import Client
from django.urls import reverse

from evalhub.api.services import tokens as token_service
from evalhub.competitions.models import SharedTask
from evalhub.participation.models import TermsVersion
from tests.participation.helpers import accept, set_terms

pytestmark = pytest.mark.django_db

ROLES = (
    "anonymous",
    "participant",
    "other_team",
    "co_organiser",
    "other_organiser",
    "staff",
    "organiser",
)
#: What only the task's organisers may see (an address, an affiliation, a roster
#: row's acceptance).
SECRETS = ("alice@uni.example", "Secret Institute", "accepted_current_terms")

ORGANISER_PAGE = (302, 404, 404, 200, 404, 404, 200)
ORGANISER_API = (401, 403, 403, 200, 403, 403, 200)


@pytest.fixture
def people(django_user_model, organiser, participant, outsider, team, other_team, task):  # noqa: ANN001, ANN201
    co = django_user_model.objects.create_user("co", password="pw-co-1")
    task.organisers.add(co)
    elsewhere = django_user_model.objects.create_user("else", password="pw-else-1")
    other_task = SharedTask.objects.create(
        slug="other-task",
        title="Other",
        task_type=task.task_type,
        task_settings=task.task_settings,
        state=SharedTask.State.PUBLISHED,
    )
    other_task.organisers.add(elsewhere)
    staff = django_user_model.objects.create_user(
        "staffer", password="pw-staff-1", is_staff=True
    )
    users = {
        "participant": participant,
        "other_team": outsider,
        "co_organiser": co,
        "other_organiser": elsewhere,
        "staff": staff,
        "organiser": organiser,
    }
    secrets = {
        "participant": token_service.create(user=participant, name="p").secret,
        "other_team": token_service.create(user=outsider, name="o").secret,
        "co_organiser": token_service.create(
            user=co, name="c", scope="organise", tasks=[task]
        ).secret,
        "other_organiser": token_service.create(
            user=elsewhere, name="e", scope="organise", tasks=[other_task]
        ).secret,
        "staff": token_service.create(user=staff, name="s").secret,
        "organiser": token_service.create(
            user=organiser, name="org", scope="organise", tasks=[task]
        ).secret,
    }
    EmailAddress.objects.create(
        user=participant, email="alice@uni.example", verified=True, primary=True
    )
    c = Client()
    c.force_login(participant)
    c.post(
        reverse("participation:profile"),
        {"affiliation": "Secret Institute", "country": "Utopia"},
    )
    set_terms(organiser, task, "Research only.")
    accept(participant, task, 1)
    return users, secrets


def _client(role: str, users) -> Client:  # noqa: ANN001
    c = Client()
    if role != "anonymous":
        c.force_login(users[role])
    return c


def _check(users, secrets, url: str, want, *, api: bool = False) -> list[str]:  # noqa: ANN001
    failures = []
    for role, status in zip(ROLES, want, strict=True):
        headers = (
            {"HTTP_AUTHORIZATION": f"Bearer {secrets[role]}"}
            if api and role != "anonymous"
            else {}
        )
        c = Client() if api else _client(role, users)
        response = c.get(url, **headers)
        body = b"".join(response) if response.streaming else response.content
        if response.status_code != status:
            failures.append(f"{role} GET {url}: {response.status_code}, not {status}")
        if role not in ("organiser", "co_organiser"):
            leaked = [s for s in SECRETS if s.encode() in body]
            if leaked:
                failures.append(f"{role} GET {url}: leaks {leaked}")
    return failures


def test_every_new_page_and_endpoint_for_every_role(people, task):
    users, secrets = people
    slug = task.slug
    failures = []
    for name in ("console:data-terms", "console:participants"):
        failures += _check(users, secrets, reverse(name, args=[slug]), ORGANISER_PAGE)
    failures += _check(
        users,
        secrets,
        reverse("console:participants-export", args=[slug]),
        ORGANISER_PAGE,
    )
    for name in ("api:api-v1:roster", "api:api-v1:roster-csv"):
        failures += _check(
            users, secrets, reverse(name, args=[slug]), ORGANISER_API, api=True
        )
    # Everyone may read the terms (not who accepted them) and their own profile.
    failures += _check(
        users,
        secrets,
        reverse("participation:terms", args=[slug]),
        (200,) * 7,
    )
    profile = reverse("participation:profile")
    for role in ROLES[2:]:  # the participant sees their own; nobody else theirs
        failures += _check(
            {**users, "participant": users[role]}, secrets, profile, (302,) + (200,) * 6
        )
    assert not failures, "\n".join(failures)


def test_only_the_organisers_change_the_terms(people, task):
    users, _secrets = people
    url = reverse("console:data-terms", args=[task.slug])
    for role in ROLES[:-1]:
        if role == "co_organiser":
            continue
        response = _client(role, users).post(url, {"text": f"by {role}", "licence": ""})
        assert response.status_code in (302, 404), role
        if role == "anonymous":
            assert "/accounts/login/" in response["Location"]
    assert list(TermsVersion.objects.values_list("text", flat=True)) == [
        "Research only."
    ]
    response = _client("co_organiser", users).post(
        url, {"text": "by co", "licence": "CC0-1.0"}
    )
    assert response.status_code == 302
    assert TermsVersion.objects.filter(text="by co", number=2).exists()


def test_the_api_files_of_a_task_with_terms_for_every_role(people, task, test_set):
    """Organisers and the participant who accepted get the file; the other team
    (not accepted), staff and an organiser of another task are refused with the
    terms' link; anonymous too."""
    users, secrets = people
    url = reverse(
        "api:api-v1:testset-file-download",
        args=[task.slug, "evaluation", "public", "source_terms"],
    )
    failures = _check(
        users, secrets, url, (403, 200, 403, 200, 403, 403, 200), api=True
    )
    assert not failures, "\n".join(failures)
    refused = Client().get(url, HTTP_AUTHORIZATION=f"Bearer {secrets['staff']}")
    assert f"/tasks/{task.slug}/terms/" in refused.json()["detail"]
    page = reverse("competitions:testset-file", args=[test_set.pk, "source_terms"])
    got = {role: _client(role, users).get(page).status_code for role in ROLES}
    assert got == {
        "anonymous": 302,
        "participant": 200,
        "other_team": 302,
        "co_organiser": 200,
        "other_organiser": 302,
        "staff": 302,
        "organiser": 200,
    }
