"""Mailing a message to its recipients: the one writer of ``Delivery.status``.

Each delivery is claimed and sent inside one transaction: the claim
(``pending`` rows only, ``attempts`` + 1) locks the row, the mail is sent, and the
row becomes ``sent`` before the commit. A send that raises rolls the claim back:
the row stays ``pending``, its attempt counted apart, with the time it is tried
again (``retry_at``, later after each failure; failed after ``MAX_ATTEMPTS``),
when beat sends the message's job again (``due``; work for later is a row that
beat sends, never a delayed job). A row already ``sent`` is never claimed again,
so a retry, or the job delivered twice, mails nobody twice. Opt-outs are read when the mail goes out
(``notifications.services.mail.reachable``): whoever opted out meanwhile is
skipped, and so is a member without a verified address.
"""

from __future__ import annotations

import html
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.mail import EmailMultiAlternatives, get_connection
from django.db import transaction
from django.db.models import Count, F, Q
from django.urls import reverse
from django.utils import timezone

from evalhub.competitions.public_url import absolute
from evalhub.mailings.models import Delivery, Message
from evalhub.notifications.services import mail

log = logging.getLogger(__name__)

#: Attempts at one recipient's mail before it is given up as failed.
MAX_ATTEMPTS = 5

S = Delivery.Status


@dataclass(frozen=True, slots=True)
class Progress:
    total: int
    sent: int
    skipped: int
    failed: int

    @property
    def pending(self) -> int:
        return self.total - self.sent - self.skipped - self.failed

    @property
    def settled(self) -> int:
        return self.total - self.pending

    @property
    def done(self) -> bool:
        return self.pending == 0


def progress(*, message: Message) -> Progress:
    counts = dict(
        Delivery.objects.filter(message=message)
        .values_list("status")
        .annotate(n=Count("pk"))
    )
    return Progress(
        total=sum(counts.values()),
        sent=counts.get(S.SENT, 0),
        skipped=counts.get(S.SKIPPED, 0),
        failed=counts.get(S.FAILED, 0),
    )


def due(*, now: datetime | None = None) -> list[int]:
    """The messages beat sends the job of again: a delivery is due for its retry
    (``retry_at`` passed), or still untried a while after the message was
    written (its job lost with the broker)."""
    now = now or timezone.now()
    lost = now - timedelta(seconds=settings.QUEUED_REENQUEUE_AFTER)
    pending = Delivery.objects.filter(status=S.PENDING)
    return list(
        Message.objects.filter(
            Q(deliveries__in=pending.filter(retry_at__lte=now))
            | Q(
                created_at__lt=lost,
                deliveries__in=pending.filter(retry_at__isnull=True),
            )
        )
        .values_list("pk", flat=True)
        .distinct()
    )


def send(*, message_id: int, now: datetime | None = None) -> int:
    """Mail every pending delivery of the message not waiting for a later retry.
    Returns how many are still pending because their send failed."""
    message = Message.objects.select_related("task").filter(pk=message_id).first()
    if message is None:
        return 0
    pending = list(
        Delivery.objects.filter(message=message, status=S.PENDING)
        .filter(Q(retry_at__isnull=True) | Q(retry_at__lte=now or timezone.now()))
        .values_list("pk", "user_id", "team_name")
    )
    addresses = mail.reachable(user_ids={user for _, user, _ in pending})
    connection = get_connection()
    left = 0
    for pk, user, team_name in pending:
        try:
            _deliver(message, pk, user, addresses.get(user), team_name, connection)
        except Exception as exc:  # noqa: BLE001 - any failure of the mail server
            left += _failed(pk, exc)
    if pending:
        log.info("message %s: %d of %d still pending", message_id, left, len(pending))
    return left


def _deliver(
    message: Message,
    pk: int,
    user: int,
    address: str | None,
    team_name: str,
    connection: object,
) -> None:
    with transaction.atomic():
        claimed = Delivery.objects.filter(pk=pk, status=S.PENDING).update(
            attempts=F("attempts") + 1
        )
        if claimed != 1:
            return  # settled by another delivery of the job
        if address is None:
            why = (
                "opted out of e-mails"
                if not mail.wants_mail(user=user)
                else "no verified e-mail address"
            )
            Delivery.objects.filter(pk=pk).update(status=S.SKIPPED, reason=why)
            return
        connection.send_messages([email(message, address, team_name)])  # type: ignore[attr-defined]
        Delivery.objects.filter(pk=pk).update(
            status=S.SENT, sent_at=timezone.now(), reason="", retry_at=None
        )


#: Seconds before a failed send is tried again, by how many attempts failed.
RETRY_AFTER = (0, 60, 300, 1800)


def _failed(pk: int, exc: Exception) -> int:
    """Count the failed attempt (its claim was rolled back) and set its retry;
    give up after ``MAX_ATTEMPTS``. Returns 1 while the delivery stays pending."""
    log.warning("a message's delivery %s failed: %s", pk, exc)
    row = Delivery.objects.filter(pk=pk, status=S.PENDING)
    attempts = (row.values_list("attempts", flat=True).first() or 0) + 1
    if attempts >= MAX_ATTEMPTS:
        row.update(attempts=attempts, status=S.FAILED, reason=_refused(exc))
        return 0
    wait = RETRY_AFTER[min(attempts, len(RETRY_AFTER)) - 1]
    retry_at = timezone.now() + timedelta(seconds=wait)
    return row.update(attempts=attempts, retry_at=retry_at, reason=_refused(exc))


def _refused(exc: Exception) -> str:
    return f"the mail server refused it: {exc}"[:300]


def subject(message: Message) -> str:
    line = " ".join(f"{message.task.title}: {message.subject}".split())
    return f"[evalhub] {line}"


def email(message: Message, address: str, team_name: str) -> EmailMultiAlternatives:
    """The mail of ``message`` to one recipient: the Markdown as written (plain
    text) and as the site renders it (sanitised HTML), then why they receive it
    and how to stop; user text escaped in the HTML part."""
    task = message.task
    stop = absolute(reverse("notifications:mail-settings"))
    why = (
        f"You receive this from the organisers of {task.title} as a member of team "
        f"{team_name}: {absolute(task.get_absolute_url())}"
    )
    text = f"{message.body}\n\n--\n{why}\nTo stop these e-mails: {stop}\n"
    page = (
        f"{message.body_html}<hr><p>{html.escape(why)}<br>To stop these e-mails: "
        f'<a href="{html.escape(stop)}">{html.escape(stop)}</a></p>'
    )
    mail_ = EmailMultiAlternatives(
        subject(message), text, to=[address], headers={"List-Unsubscribe": f"<{stop}>"}
    )
    mail_.attach_alternative(page, "text/html")
    return mail_
