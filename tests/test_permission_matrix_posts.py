"""Permission matrix, POST side: state-changing POSTs role by role (a run's
rescoring, tokens, teams, invitations, notifications, registrations, baselines,
the organiser console, a run's final choice and visibility): each POST by the
wrong role changes nothing. The GETs of every URL are in
tests/test_permission_matrix.py.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from evalhub.api.models import ApiToken
from tests.api.fixtures import (  # noqa: F401  (fixtures)
    analysed,
    scored,
    secret_test_set,
    tokens,
)
from tests.permission_world import community  # noqa: F401  (a fixture)

pytestmark = pytest.mark.django_db


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
    community,  # noqa: F811
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
    from evalhub.embeds.models import EmbedSettings
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
        reverse("console:embeds", args=[slug]): {"origins": "https://evil.example"},
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
    assert not EmbedSettings.objects.exists()


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
