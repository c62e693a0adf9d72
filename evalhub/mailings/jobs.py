"""Celery adapters of the messages to teams: one service call each."""

from __future__ import annotations

from celery import shared_task

from evalhub.mailings.services import sending


@shared_task(
    name="evalhub.mailings.jobs.send_message",
    acks_late=True,
    soft_time_limit=sending.SEND_TIME_LIMIT - 30,
    time_limit=sending.SEND_TIME_LIMIT,
)
def send_message(message_id: int) -> int:
    """Mail the message's deliveries that are due; a failed one waits for beat."""
    return sending.send(message_id=message_id)


@shared_task(
    name="evalhub.mailings.jobs.resume_messages",
    acks_late=True,
    soft_time_limit=60,
    time_limit=90,
)
def resume_messages() -> list[int]:
    """Beat's tick: send the job of every message with deliveries due again."""
    ids = sending.due()
    for pk in ids:
        send_message.delay(pk)
    return ids
