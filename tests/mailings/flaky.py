"""A mail backend for the tests: Django's in-memory outbox, whose server refuses
the first mail to each address listed in ``FAIL_ONCE`` (a mail server down for a
moment), as SMTP would, with an exception."""

from __future__ import annotations

import smtplib

from django.core.mail.backends.locmem import EmailBackend

#: Addresses whose first mail fails; emptied by the tests that fill it.
FAIL_ONCE: set[str] = set()


class FlakyBackend(EmailBackend):
    def send_messages(self, messages):  # noqa: ANN001, ANN201
        for message in messages:
            for address in message.to:
                if address in FAIL_ONCE:
                    FAIL_ONCE.discard(address)
                    raise smtplib.SMTPServerDisconnected(
                        "connection unexpectedly closed"
                    )
        return super().send_messages(messages)
