"""A message's mails go out after the claim of their delivery is committed, never
while a transaction is open (on SQLite, a transaction that has written holds the
whole database's write lock, and a mail server may take seconds to answer): a
rolled-back claim mails nobody, and the mail server is only talked to outside any
transaction."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.core.mail.backends.locmem import EmailBackend
from django.db import connection, transaction
from django.urls import reverse
from django.utils import timezone

from evalhub.mailings import jobs
from evalhub.mailings.models import Delivery, Message

#: Per mail the backend was handed: was a transaction open at that moment?
SEEN_IN_TRANSACTION: list[bool] = []


class WatchingBackend(EmailBackend):
    """Django's in-memory outbox, noting whether a transaction is open."""

    def send_messages(self, messages):  # noqa: ANN001, ANN201
        SEEN_IN_TRANSACTION.extend(connection.in_atomic_block for _ in messages)
        return super().send_messages(messages)


class RolledBack(Exception):
    pass


def _to() -> list[str]:
    return sorted(address for m in mail.outbox for address in m.to)


def _post(client, task, organiser) -> Message:  # noqa: ANN001
    client.force_login(organiser)
    response = client.post(
        reverse("console:message-create", args=[task.slug]),
        {"subject": "Hello", "body": "Hello.", "audience": "all", "send": "1"},
    )
    assert response.status_code == 302
    return Message.objects.get()


@pytest.mark.django_db
def test_a_rolled_back_claim_mails_nobody_and_a_committed_one_mails(
    client, organiser, task, world, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False):
        message = _post(client, task, organiser)

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(RolledBack), transaction.atomic():
            jobs.send_message.apply(args=[message.pk]).get()
            assert mail.outbox == []  # claimed, not committed: nothing goes out
            raise RolledBack
    assert callbacks == [] and mail.outbox == []
    states = set(message.deliveries.values_list("status", "attempts", "retry_at"))
    assert states == {(Delivery.Status.PENDING, 0, None)}  # as if never tried

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        jobs.send_message.apply(args=[message.pk]).get()
        assert mail.outbox == []  # the claims are not committed yet
    # alice, carol, mallory; bob opted out and dave has no verified address.
    assert len(callbacks) == 3
    assert _to() == ["alice@example.org", "carol@example.org", "mallory@example.org"]
    sent = message.deliveries.filter(status=Delivery.Status.SENT)
    assert sent.count() == 3 and not sent.filter(retry_at__isnull=False).exists()


@pytest.mark.django_db
def test_a_claim_keeps_other_jobs_off_until_it_lapses(
    client, organiser, task, world, django_capture_on_commit_callbacks
):
    """A worker that dies with its claims committed and its mails not sent: a
    second delivery of the job mails nobody while the claims hold; once they
    lapse, beat's tick sends the job again and the worker mails them."""
    from evalhub.mailings.services import sending

    with django_capture_on_commit_callbacks(execute=False):
        message = _post(client, task, organiser)
        jobs.send_message.apply(args=[message.pk]).get()  # dies before its mails
    assert mail.outbox == []
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        jobs.send_message.apply(args=[message.pk]).get()
    assert callbacks == [] and mail.outbox == []
    assert sending.due() == []
    held = message.deliveries.filter(status=Delivery.Status.PENDING)
    assert held.count() == 3 and not held.filter(retry_at__isnull=True).exists()

    held.update(retry_at=timezone.now())  # time passes: the claims lapse
    assert jobs.resume_messages.apply().get() == [message.pk]
    with django_capture_on_commit_callbacks(execute=True):
        jobs.send_message.apply(args=[message.pk]).get()
    assert _to() == ["alice@example.org", "carol@example.org", "mallory@example.org"]
    assert not held.exists()  # all settled, each at its second attempt
    sent = message.deliveries.filter(status=Delivery.Status.SENT)
    assert set(sent.values_list("attempts", flat=True)) == {2}


@pytest.mark.django_db(transaction=True)
def test_the_mail_server_is_talked_to_outside_any_transaction(
    client, organiser, task, team, other_team, participant, outsider, settings
):
    settings.EMAIL_BACKEND = "tests.mailings.test_after_commit.WatchingBackend"
    for user in (participant, outsider):
        EmailAddress.objects.create(
            user=user, email=f"{user.username}@example.org", verified=True, primary=True
        )
    message = _post(client, task, organiser)
    SEEN_IN_TRANSACTION.clear()
    assert jobs.send_message.apply(args=[message.pk]).get() == 0
    assert _to() == ["alice@example.org", "mallory@example.org"]
    assert SEEN_IN_TRANSACTION == [False, False]
    # Run again (the job delivered twice): nobody is mailed twice.
    jobs.send_message.apply(args=[message.pk]).get()
    assert len(mail.outbox) == 2
