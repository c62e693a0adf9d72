"""Organisers never compete (issue 28, item 9): a co-organiser cannot register a team
for the task, join a team registered for it (invitation or link), submit a run to it
(browser, API), or have a registration approved; nobody in a registered team becomes
an organiser. Every path asks one function, ``services/roles.refuse_overlap``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from evalhub.api.services import tokens as token_service
from evalhub.competitions.models import Registration, Submission, Team
from evalhub.teams.models import Invitation

pytestmark = pytest.mark.django_db

WHY = "organisers cannot be in a competing team"
REPO = Path(__file__).resolve().parents[2]


def _messages(response) -> str:  # noqa: ANN001
    return " ".join(str(m) for m in response.context["messages"])


@pytest.fixture
def co_organiser(client, organiser, task, django_user_model):  # noqa: ANN001, ANN201
    """bob, a non-staff user the owner adds as organiser on the console."""
    bob = django_user_model.objects.create_user("bob", password="pw-bob-1")
    client.force_login(organiser)
    url = reverse("console:organisers", args=[task.slug])
    assert client.post(url, {"username": "bob"}).status_code == 302
    client.logout()
    return bob


def test_a_co_organiser_cannot_register_a_team(client, task, co_organiser):
    client.force_login(co_organiser)
    page = client.get(task.get_absolute_url()).content.decode()
    assert "You organise this task, so you cannot be in a team" in page
    assert reverse("competitions:task-register", args=[task.slug]) not in page
    url = reverse("competitions:task-register", args=[task.slug])
    response = client.post(url, {"new_team": "Bob's bots"})
    assert f"You organise this task: {WHY}" in response.content.decode()
    assert not Team.objects.filter(name="Bob's bots").exists()  # not even created
    # Nor with a team of theirs made beforehand.
    client.post(reverse("teams:team-create"), {"name": "Beta"})
    beta = Team.objects.get(name="Beta")
    response = client.post(url, {"existing_team": beta.pk})
    assert f"You organise this task: {WHY}" in response.content.decode()
    assert not Registration.objects.filter(team=beta).exists()


def test_a_co_organiser_cannot_join_a_registered_team(
    client, task, team, participant, co_organiser
):
    client.force_login(participant)
    invite = reverse("teams:invitation-create", args=[team.pk])
    client.post(invite, {"who": "bob"})
    invitation = Invitation.objects.get(invitee=co_organiser)
    client.post(invite, {"link": "1"})
    link = Invitation.objects.get(team=team, invitee__isnull=True)

    client.force_login(co_organiser)
    by_name = client.post(
        reverse("teams:invitation-accept", args=[invitation.pk]), follow=True
    )
    by_link = client.post(link.link_url(), follow=True)
    for response in (by_name, by_link):
        assert (
            f"You organise {task.title}, for which team Alpha is registered: {WHY}"
            in _messages(response)
        )
    assert not team.members.filter(pk=co_organiser.pk).exists()
    invitation.refresh_from_db()
    assert invitation.status == Invitation.Status.PENDING  # still open, not used up


def test_an_organiser_in_a_registered_team_cannot_submit(
    client, task, team, participant, phase, test_set, demo_run
):
    # Made an organiser before the rule held on every path (rows written directly).
    task.organisers.add(participant)
    client.force_login(participant)
    browser = client.post(
        reverse("competitions:run-submit", args=[task.slug, phase.slug]),
        {"method_name": "gold", "run": SimpleUploadedFile("run.tsv", demo_run)},
    )
    assert browser.status_code == 422
    assert f"You organise this task: {WHY}" in browser.content.decode()
    secret = token_service.create(user=participant, name="cli").secret
    api = client.post(
        f"/api/tasks/{task.slug}/phases/{phase.slug}/runs",
        {"method_name": "gold", "file": SimpleUploadedFile("run.tsv", demo_run)},
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    )
    assert api.status_code == 403
    assert f"You organise this task: {WHY}" in api.json()["detail"]
    assert not Submission.objects.exists()


def test_a_team_member_cannot_become_organiser(client, organiser, task, team):
    client.force_login(organiser)
    url = reverse("console:organisers", args=[task.slug])
    response = client.post(url, {"username": "alice"})
    assert response.status_code == 422
    assert f"alice is a member of team Alpha registered for this task: {WHY}" in str(
        response.context["form"].errors
    )
    assert list(task.organisers.all()) == [organiser]


def test_a_registration_with_an_organiser_is_not_approved(
    client, organiser, task, participant
):
    task.requires_approval = True
    task.save()
    client.force_login(participant)
    client.post(
        reverse("competitions:task-register", args=[task.slug]), {"new_team": "Alpha"}
    )
    registration = Registration.objects.get(team__name="Alpha")
    assert registration.status == Registration.Status.PENDING
    # alice became an organiser before the rule held on every path.
    task.organisers.add(participant)
    client.force_login(organiser)
    decide = reverse(
        "competitions:registration-decide", args=[task.slug, registration.pk]
    )
    response = client.post(decide, {"decision": "approve"}, follow=True)
    assert (
        f"alice organises this task and is a member of team Alpha: {WHY}"
        in _messages(response)
    )
    registration.refresh_from_db()
    assert registration.status == Registration.Status.PENDING
    client.post(decide, {"decision": "reject"})  # rejecting stays possible
    registration.refresh_from_db()
    assert registration.status == Registration.Status.REJECTED


def test_baseline_runs_stay_the_organisers(
    client, organiser, task, phase, test_set, demo_run
):
    client.force_login(organiser)
    response = client.post(
        reverse("competitions:baseline-create", args=[task.slug, phase.slug]),
        {"method_name": "baseline", "run": SimpleUploadedFile("run.tsv", demo_run)},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Submission.objects.get().is_baseline


# Where the rule is asked; nowhere else may decide who organises and competes.
CALLERS = {
    "evalhub/competitions/services/teams.py": 2,  # registering, approving
    "evalhub/competitions/services/runs/submit.py": 1,
    "evalhub/teams/services/teams.py": 1,  # joining, by invitation or link
    "evalhub/console/services/people.py": 1,  # adding an organiser
    # The admin: organisers, a registration, a team's members typed in.
    "evalhub/competitions/admin_forms.py": 3,
}
# Queries that join a task's organisers and its teams' members, or word the refusal.
RULE = re.compile(
    r"organisers\.filter\(teams=|organisers__teams|"
    r"registrations__team=[^)\n]*organisers=|organisers=[^)\n]*registrations__team=|"
    r"cannot be in a competing team|organiser sees the hidden gold"
)


def test_every_path_asks_the_one_rule_and_nobody_writes_it_again():
    for path, calls in CALLERS.items():
        text = (REPO / path).read_text()
        assert text.count("roles.refuse_overlap(") == calls, path
    rule_module = "evalhub/competitions/services/roles.py"
    for path in sorted((REPO / "evalhub").rglob("*.py")):
        name = path.relative_to(REPO).as_posix()
        if name == rule_module or "/migrations/" in name:
            continue
        text = path.read_text()
        assert "refuse_overlap" not in text or name in CALLERS, name
        found = RULE.search(text)
        assert found is None, f"{name}: {found and found.group(0)}"


def test_the_admin_adds_no_team_member_as_organiser(client, organiser, task, team):
    import json

    client.force_login(organiser)
    url = reverse("admin:competitions_sharedtask_change", args=[task.pk])
    form = client.get(url).context["adminform"].form
    data = {n: form[n].value() for n in form.fields if form[n].value() is not None}
    data.update(
        organisers="org, alice",
        task_settings=json.dumps(task.task_settings),
        **{"phases-TOTAL_FORMS": "0", "phases-INITIAL_FORMS": "0"},
    )
    refused = client.post(url, data)
    assert refused.status_code == 200
    assert (
        f"alice is a member of team Alpha registered for this task: {WHY}"
        in refused.content.decode()
    )
    assert list(task.organisers.all()) == [organiser]


def test_the_admin_registers_no_team_of_an_organiser(
    client, organiser, task, django_user_model
):
    client.force_login(organiser)
    client.post(reverse("teams:team-create"), {"name": "Org's own"})
    own = Team.objects.get(name="Org's own")
    response = client.post(
        reverse("admin:competitions_registration_add"),
        {"task": task.pk, "team": own.pk, "status": "approved"},
    )
    assert response.status_code == 200
    assert "org organises this task and is a member of team Org&#x27;s own" in (
        response.content.decode()
    )
    assert not Registration.objects.exists()


def test_site_staff_add_no_organiser_to_a_registered_team(
    client, organiser, task, team, django_user_model
):
    admin = django_user_model.objects.create_superuser("root", password="pw-root-1")
    client.force_login(admin)
    url = reverse("admin:competitions_team_change", args=[team.pk])
    response = client.post(url, {"name": team.name, "members": "alice, org"})
    assert response.status_code == 200
    assert "org organises BUCC test task, for which team Alpha is registered" in (
        response.content.decode()
    )
    assert [u.username for u in team.members.all()] == ["alice"]
