"""What the messages' tests share: the send job run as a worker runs it."""

from __future__ import annotations

from django.test import TestCase

from evalhub.mailings import jobs


def run_send_job(message_id: int) -> int:
    """``jobs.send_message`` as Celery runs it. A worker holds no transaction, so
    the mails it leaves for after its claims commit go out at once; a test runs
    inside its own transaction, so they go out here as the job returns."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        return jobs.send_message.apply(args=[message_id]).get()
