"""Messages to teams: an organiser writes to the approved teams of a task (or to
those a recipient filter selects, ``competitions/services/recipients.py``), a
worker mails each member once, honouring the notification e-mails' opt-out.

It sits above the notifications app (it mails through their one rule of who may
be mailed) and the console (its pages are console pages; a message may also be
posted as one of the console's announcements); nothing below imports it."""

from __future__ import annotations

from django.apps import AppConfig


class MailingsConfig(AppConfig):
    name = "evalhub.mailings"
    label = "mailings"
    verbose_name = "Messages to teams"

    def ready(self) -> None:
        from evalhub.mailings import receivers  # noqa: F401  (connects signals)
