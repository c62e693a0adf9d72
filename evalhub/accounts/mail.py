"""The mail backend used when no SMTP server is configured (``manage.py up``, a
laptop): every message is logged and written to a file of its own in
``EMAIL_FILE_PATH`` (``mail/`` in the data folder), so whoever runs the platform can
read a verification or password-reset mail and follow its link."""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Sequence
from datetime import datetime

from django.core.mail.backends import filebased
from django.core.mail.message import EmailMessage

log = logging.getLogger("evalhub.mail")


class ConsoleAndFileBackend(filebased.EmailBackend):
    """Django's file backend, one file per message (Django's writes all messages of
    one connection to one file), each message also logged with its text."""

    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        sent = 0
        for message in email_messages:
            self.close()
            self._fname = None
            sent += super().send_messages([message]) or 0
            log.info(
                "mail to %s (file %s), subject %r:\n%s",
                ", ".join(message.recipients()),
                os.path.basename(self._fname or ""),
                message.subject,
                message.body,
            )
        return sent

    def _get_filename(self) -> str:
        if self._fname is None:
            stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
            name = f"{stamp}-{uuid.uuid4().hex[:12]}.log"
            self._fname = os.path.join(self.file_path, name)
        return self._fname
