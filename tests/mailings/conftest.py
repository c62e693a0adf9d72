"""A task with three approved teams and one awaiting approval; who has a verified
address and who opted out of e-mails; Alpha has chosen a final run."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.urls import reverse


def _verified(user, address: str) -> None:  # noqa: ANN001
    EmailAddress.objects.create(user=user, email=address, verified=True, primary=True)


@pytest.fixture
def world(
    client,
    task,
    phase,
    test_set,
    team,
    other_team,
    participant,
    outsider,
    submit_run,
    demo_run,
    django_user_model,
):  # noqa: ANN001, ANN201
    """Alpha: alice (verified, a final run), bob (verified, opted out on the
    page). Mallory's: mallory (verified). Gamma: carol (verified), dave (no
    verified address). Pending (awaiting approval): erin (verified)."""
    from evalhub.competitions import jobs
    from evalhub.competitions.services import teams
    from evalhub.competitions.services.runs import finals

    users = {
        name: django_user_model.objects.create_user(name, password=f"pw-{name}-1")
        for name in ("bob", "carol", "dave", "erin")
    }
    team.members.add(users["bob"])
    gamma = teams.register(task=task, user=users["carol"], new_team_name="Gamma").team
    gamma.members.add(users["dave"])
    task.requires_approval = True
    task.save()
    teams.register(task=task, user=users["erin"], new_team_name="Pending")
    task.requires_approval = False
    task.save()
    for user in (participant, outsider, users["bob"], users["carol"], users["erin"]):
        _verified(user, f"{user.username}@example.org")
    from allauth.account.models import EmailAddress as Address

    Address.objects.create(user=users["dave"], email="dave@example.org")
    client.force_login(users["bob"])
    assert client.post(reverse("notifications:mail-settings"), {}).status_code == 302
    client.logout()
    run = submit_run(demo_run)
    jobs.score_submission(run.pk)
    run.refresh_from_db()
    finals.set_final(submission=run, user=participant, final=True)
    return {"gamma": gamma, **users}
