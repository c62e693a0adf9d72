"""Celery adapters of the messages to teams: one service call each."""

from __future__ import annotations

from celery import shared_task

from evalhub.mailings.services import sending

#: Seconds before the first retry of a message whose sends failed (doubled each
#: time, at most ten minutes).
RETRY_AFTER = 30


@shared_task(
    bind=True,
    name="evalhub.mailings.jobs.send_message",
    acks_late=True,
    max_retries=8,
    soft_time_limit=600,
    time_limit=630,
)
def send_message(self, message_id: int) -> int:  # noqa: ANN001
    """Mail the message's pending deliveries; retry those whose send failed."""
    left = sending.send(message_id=message_id)
    if left:
        raise self.retry(countdown=min(600, RETRY_AFTER * 2**self.request.retries))
    return left


@shared_task(
    name="evalhub.mailings.jobs.resume_messages",
    acks_late=True,
    soft_time_limit=60,
    time_limit=90,
)
def resume_messages() -> list[int]:
    """Beat's tick: send again the job of messages still pending."""
    ids = sending.unfinished()
    for pk in ids:
        send_message.delay(pk)
    return ids
