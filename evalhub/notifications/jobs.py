"""Celery adapters for notifications: one service call each."""

from __future__ import annotations

from celery import shared_task

from evalhub.notifications.services import mail


@shared_task(
    name="evalhub.notifications.jobs.mail_notifications",
    acks_late=True,
    soft_time_limit=120,
    time_limit=150,
)
def mail_notifications(key: str) -> int:
    return mail.send_for(key=key)
