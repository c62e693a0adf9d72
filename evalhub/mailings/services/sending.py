"""Mailing a message to its recipients: the one writer of ``Delivery.status``.

A delivery is first *claimed*: one committed write (``pending`` rows that are due
only, ``attempts`` + 1, ``retry_at`` pushed past the send job's time limit, so no
other job takes it meanwhile). Its mail goes out once that claim is committed
(``transaction.on_commit``: at once in a worker, which holds no transaction), and
the row becomes ``sent``: the mail server is never waited for while a transaction
is open (on SQLite, the whole database's write lock). A send that raises leaves the
row ``pending`` with the time it is tried again (``retry_at``, later after each
failure; failed after ``MAX_ATTEMPTS``), when beat sends the message's job again
(``due``; work for later is a row that beat sends, never a delayed job); so does a
worker that dies mid-send, once its claim lapses (a mail the server took just
before the worker died then goes out twice: the one such case). A row already
``sent`` or claimed is never claimed again, so a retry, or the job delivered twice,
mails nobody twice. Opt-outs are read when the mail goes out
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

#: Seconds the send job may run (``jobs.send_message``'s hard time limit): a claim
#: lasts as long, so a live job's claim never lapses while its mail is out.
SEND_TIME_LIMIT = 630

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


def _due(now: datetime) -> Q:
    return Q(status=S.PENDING) & (Q(retry_at__isnull=True) | Q(retry_at__lte=now))


def send(*, message_id: int, now: datetime | None = None) -> int:
    """Mail every pending delivery of the message not waiting for a later retry.
    Returns how many of those mailed by now are still pending because their send
    failed (in a transaction, the mails go out when it commits)."""
    message = Message.objects.select_related("task").filter(pk=message_id).first()
    if message is None:
        return 0
    now = now or timezone.now()
    pending = list(
        Delivery.objects.filter(_due(now), message=message).values_list(
            "pk", "user_id", "team_name"
        )
    )
    addresses = mail.reachable(user_ids={user for _, user, _ in pending})
    connection = get_connection()
    left: list[int] = []
    for pk, user, team_name in pending:
        if not _claim(pk, now):
            continue  # settled or claimed by another delivery of the job
        address = addresses.get(user)
        if address is None:
            why = (
                "opted out of e-mails"
                if not mail.wants_mail(user=user)
                else "no verified e-mail address"
            )
            Delivery.objects.filter(pk=pk).update(
                status=S.SKIPPED, reason=why, retry_at=None
            )
            continue
        outgoing = email(message, address, team_name)
        transaction.on_commit(
            lambda pk=pk, outgoing=outgoing: left.extend(
                _mail(pk, outgoing, connection)
            )
        )
    if pending:
        log.info(
            "message %s: %d of %d still pending", message_id, len(left), len(pending)
        )
    return len(left)


def _claim(pk: int, now: datetime) -> bool:
    """Take the delivery if it is due: exactly one caller wins; the attempt is
    counted and ``retry_at`` keeps everyone else off it until the job's time
    limit has passed."""
    lease = timezone.now() + timedelta(seconds=SEND_TIME_LIMIT)
    return (
        Delivery.objects.filter(_due(now), pk=pk).update(
            attempts=F("attempts") + 1, retry_at=lease
        )
        == 1
    )


def _mail(pk: int, outgoing: EmailMultiAlternatives, connection: object) -> list[int]:
    """Send one claimed delivery's mail (its claim committed) and settle the row;
    ``[pk]`` if it stays pending for a retry."""
    try:
        connection.send_messages([outgoing])  # type: ignore[attr-defined]
    except Exception as exc:  # noqa: BLE001 - any failure of the mail server
        return [pk] if _failed(pk, exc) else []
    Delivery.objects.filter(pk=pk, status=S.PENDING).update(
        status=S.SENT, sent_at=timezone.now(), reason="", retry_at=None
    )
    return []


#: Seconds before a failed send is tried again, by how many attempts failed.
RETRY_AFTER = (0, 60, 300, 1800)


def _failed(pk: int, exc: Exception) -> int:
    """After a failed send (its attempt counted by the claim): set its retry; give
    up after ``MAX_ATTEMPTS``. Returns 1 while the delivery stays pending."""
    log.warning("a message's delivery %s failed: %s", pk, exc)
    row = Delivery.objects.filter(pk=pk, status=S.PENDING)
    attempts = row.values_list("attempts", flat=True).first() or 0
    if attempts >= MAX_ATTEMPTS:
        row.update(status=S.FAILED, reason=_refused(exc), retry_at=None)
        return 0
    wait = RETRY_AFTER[min(attempts, len(RETRY_AFTER)) - 1]
    retry_at = timezone.now() + timedelta(seconds=wait)
    return row.update(retry_at=retry_at, reason=_refused(exc))


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
