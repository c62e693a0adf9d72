"""Messages to teams (issue 44, item 3), written on the console's pages and sent by
the worker's job as Celery runs it: they reach exactly the members of the approved
teams the filter selects, minus who opted out of e-mails or has no verified
address; a failed send is retried and nobody is mailed twice; the console keeps
each message with its recipients; a message may also go on the task page."""

from __future__ import annotations

import pytest
from django.core import mail
from django.urls import reverse

from evalhub.mailings import jobs
from evalhub.mailings.models import Delivery, Message
from tests.mailings import flaky
from tests.mailings.helpers import run_send_job

pytestmark = pytest.mark.django_db

BODY = (
    "Dear team,\n\nplease **choose a final run** <script>alert(1)</script> by Friday."
)


def _write(client, task, *, send: bool, **data):  # noqa: ANN001, ANN003, ANN202
    url = reverse("console:message-create", args=[task.slug])
    form = {"subject": "Final runs\nwanted", "body": BODY, "audience": "all", **data}
    if send:
        form["send"] = "1"
    return client.post(url, form)


def _send(callbacks) -> Message:  # noqa: ANN001
    """The job the web request queued on commit, run as Celery runs it."""
    message = Message.objects.get()
    assert callbacks, "the request queues the job once the message is committed"
    assert mail.outbox == []  # the worker sends, not the request
    run_send_job(message.pk)
    return message


def _to() -> list[str]:
    return sorted(address for m in mail.outbox for address in m.to)


def test_a_filter_reaches_exactly_its_teams_minus_opt_outs(
    client, organiser, task, world, django_capture_on_commit_callbacks
):
    client.force_login(organiser)
    preview = _write(client, task, send=False, audience="no-final-run")
    assert preview.status_code == 200
    page = preview.content.decode()
    assert "3 members of 2 teams (Gamma, Mallory&#x27;s)" in page
    assert "<strong>choose a final run</strong>" in page and "<script>" not in page
    assert not Message.objects.exists()  # a preview stores nothing

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        sent = _write(client, task, send=True, audience="no-final-run")
    assert sent.status_code == 302
    message = _send(callbacks)
    assert _to() == ["carol@example.org", "mallory@example.org"]
    assert message.recipients == 3 and message.teams_count == 2
    assert message.subject == "Final runs wanted"
    assert message.audience_label == "No final run yet"
    states = dict(message.deliveries.values_list("user__username", "status"))
    assert states == {"mallory": "sent", "carol": "sent", "dave": "skipped"}

    one = mail.outbox[0]
    assert one.subject == "[evalhub] BUCC test task: Final runs wanted"
    assert BODY in one.body  # the Markdown as written, in the plain-text part
    html, kind = one.alternatives[0]
    assert kind == "text/html" and "<strong>choose a final run</strong>" in html
    assert "<script>" not in html
    assert "/notifications/mail/" in one.body
    assert "/notifications/mail/" in one.extra_headers["List-Unsubscribe"]

    # Delivered again (or run twice): nobody is mailed twice.
    run_send_job(message.pk)
    assert len(mail.outbox) == 2

    listing = client.get(reverse("console:messages", args=[task.slug]))
    assert "Final runs wanted" in listing.content.decode()
    detail = client.get(sent["Location"]).content.decode()
    assert "Done" in detail and "no verified e-mail address" in detail


def test_one_team_and_all_teams(
    client, organiser, task, world, django_capture_on_commit_callbacks
):
    client.force_login(organiser)
    gamma = world["gamma"]
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert (
            _write(client, task, send=True, audience="team", team=gamma.pk).status_code
            == 302
        )
    _send(callbacks)
    assert _to() == ["carol@example.org"]
    mail.outbox.clear()
    Message.objects.all().delete()

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        _write(client, task, send=True, audience="all")
    message = _send(callbacks)
    # bob opted out; dave has no verified address; erin's team is not approved.
    assert _to() == ["alice@example.org", "carol@example.org", "mallory@example.org"]
    assert message.recipients == 5
    reasons = dict(message.deliveries.values_list("user__username", "reason"))
    assert reasons["bob"] == "opted out of e-mails"


def test_a_failed_send_is_retried_and_nobody_is_mailed_twice(
    client, organiser, task, world, settings, django_capture_on_commit_callbacks
):
    settings.EMAIL_BACKEND = "tests.mailings.flaky.FlakyBackend"
    flaky.FAIL_ONCE.add("carol@example.org")
    client.force_login(organiser)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        _write(client, task, send=True, audience="all")
    message = _send(callbacks)
    assert not flaky.FAIL_ONCE  # carol's first mail failed
    assert _to() == ["alice@example.org", "mallory@example.org"]
    carol = message.deliveries.get(user=world["carol"])
    assert carol.status == Delivery.Status.PENDING and carol.attempts == 1
    assert "connection unexpectedly closed" in carol.reason
    assert (
        "1 waiting"
        in client.get(reverse("console:messages", args=[task.slug])).content.decode()
    )

    # Beat's next tick sends the message's job again; the worker mails carol only.
    entry = settings.CELERY_BEAT_SCHEDULE["resume-messages"]
    assert entry["task"] == jobs.resume_messages.name
    assert jobs.resume_messages.apply().get() == [message.pk]
    run_send_job(message.pk)
    assert _to() == ["alice@example.org", "carol@example.org", "mallory@example.org"]
    carol.refresh_from_db()
    assert carol.status == Delivery.Status.SENT and carol.attempts == 2
    assert message.deliveries.get(user__username="alice").attempts == 1
    # Nothing is due any more: beat sends nothing, a job run again mails nobody.
    assert jobs.resume_messages.apply().get() == []
    run_send_job(message.pk)
    assert len(mail.outbox) == 3


def test_a_send_that_keeps_failing_is_given_up(
    client, organiser, task, world, settings, django_capture_on_commit_callbacks
):
    from evalhub.mailings.services import sending

    settings.EMAIL_BACKEND = "tests.mailings.flaky.FlakyBackend"
    client.force_login(organiser)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        _write(client, task, send=True, audience="team", team=world["gamma"].pk)
    message = Message.objects.get()
    for _ in range(sending.MAX_ATTEMPTS):
        flaky.FAIL_ONCE.add("carol@example.org")
        Delivery.objects.filter(message=message).update(retry_at=None)  # time passes
        run_send_job(message.pk)
    flaky.FAIL_ONCE.clear()
    assert callbacks and mail.outbox == []
    carol = message.deliveries.get(user=world["carol"])
    assert carol.status == Delivery.Status.FAILED
    assert carol.attempts == sending.MAX_ATTEMPTS
    assert jobs.resume_messages.apply().get() == []


def test_a_message_can_go_on_the_task_page_too(
    client, organiser, task, world, django_capture_on_commit_callbacks
):
    from evalhub.notifications.models import Notification

    client.force_login(organiser)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        _write(client, task, send=True, audience="all", announce="on")
    _send(callbacks)
    client.logout()
    page = client.get(task.get_absolute_url()).content.decode()
    assert "Final runs wanted" in page
    assert "<strong>choose a final run</strong>" in page and "alert(1)" not in page
    # The message is the mail: the announcement is not mailed a second time.
    assert not Notification.objects.filter(key__startswith="announcement:").exists()
    assert _to() == ["alice@example.org", "carol@example.org", "mallory@example.org"]


def test_the_body_has_the_limits_of_a_description(client, organiser, task, world):
    client.force_login(organiser)
    response = _write(client, task, send=True, body="x" * 50_001)
    assert response.status_code == 422
    assert "The message is too long" in response.content.decode()
    response = _write(client, task, send=True, body="> " * 200 + "deep")
    assert response.status_code == 422
    assert "nests more than" in response.content.decode()
    assert not Message.objects.exists()


def test_no_recipient_nothing_stored(client, organiser, task, world):
    client.force_login(organiser)
    response = _write(client, task, send=True, audience="no-paper-link")
    assert response.status_code == 302  # every approved team lacks a paper
    Delivery.objects.all().delete()
    Message.objects.all().delete()
    from evalhub.competitions.models import Registration

    Registration.objects.filter(task=task).delete()
    response = _write(client, task, send=True, audience="all")
    assert response.status_code == 422
    assert "nothing was sent" in response.content.decode()
    assert not Message.objects.exists()
