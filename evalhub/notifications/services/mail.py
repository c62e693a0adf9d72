"""Notification e-mails: the notifications of a few events (announcements, private
results revealed, gold released, a run failed or rejected) also go by e-mail to recipients with a verified
primary address who have not opted out (``MailOptOut``). The mail carries the
notification's text (plain text, as on the site) and its link, nothing more: no
score, no gold, as the texts never do."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from allauth.account.models import EmailAddress
from django.core.mail import EmailMessage, get_connection
from django.urls import reverse

from evalhub.competitions.public_url import absolute
from evalhub.notifications.models import MailOptOut, Notification

log = logging.getLogger(__name__)


def wants_mail(*, user: object) -> bool:
    return not MailOptOut.objects.filter(user=user).exists()


def set_wants_mail(*, user: object, wanted: bool) -> None:
    if wanted:
        MailOptOut.objects.filter(user=user).delete()
    else:
        MailOptOut.objects.get_or_create(user=user)


def reachable(*, user_ids: Iterable[int]) -> dict[int, str]:
    """The one rule of who gets the site's mails about tasks (notifications, the
    organisers' messages): user id -> verified primary address, for the users of
    ``user_ids`` who have one and have not opted out (``MailOptOut``)."""
    users = set(user_ids)
    opted_out = MailOptOut.objects.filter(user_id__in=users).values("user_id")
    return dict(
        EmailAddress.objects.filter(user_id__in=users, verified=True, primary=True)
        .exclude(user_id__in=opted_out)
        .values_list("user_id", "email")
    )


def _subject(text: str) -> str:
    """The whole text on one line: a notification is short (``notify`` keeps it
    under 300 characters, cut between words), and a subject cut mid-word reads as
    a fault; mail clients shorten long subjects themselves."""
    line = " ".join(text.split())  # a header is one line, whatever the text holds
    return f"[evalhub] {line}"


#: Why a mail's recipient receives it, by the first part of its event's key.
_WHY = {
    "creator": "You receive this because site staff changed what your account may do.",
    "run": "You receive this as a member of the run's team.",
}
_WHY_DEFAULT = "You receive this as a member of a team registered for the task."


def _body(notification: Notification) -> str:
    link = absolute(notification.link) if notification.link.startswith("/") else ""
    stop = absolute(reverse("notifications:mail-settings"))
    why = _WHY.get(notification.key.split(":", 1)[0], _WHY_DEFAULT)
    return f"{notification.text}\n\n{link}\n\n{why}\nTo stop these e-mails: {stop}\n"


def send_for(*, key: str) -> int:
    """Mail the notifications of the event ``key`` not mailed yet. Each one is
    claimed (``mailed`` false to true) by exactly one caller before it is sent, so
    a job delivered twice mails nobody twice. Returns how many mails were sent."""
    pending = list(
        Notification.objects.filter(key=key, mailed=False).values_list(
            "pk", "recipient_id"
        )
    )
    if not pending:
        return 0
    users = {user for _, user in pending}
    addresses = reachable(user_ids=users)
    messages = []
    for pk, user in pending:
        if Notification.objects.filter(pk=pk, mailed=False).update(mailed=True) != 1:
            continue  # another delivery of this job took it
        if user not in addresses:
            continue
        notification = Notification.objects.get(pk=pk)
        messages.append(
            EmailMessage(
                _subject(notification.text),
                _body(notification),
                to=[addresses[user]],
            )
        )
    if messages:
        get_connection().send_messages(messages)
        log.info("mailed %d notifications of %s", len(messages), key)
    return len(messages)
