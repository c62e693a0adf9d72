"""The notifications app listens to the other apps' signals; they never import it.

Notifying is best effort: the signals are sent after the event's transaction
committed (e.g. inside a scoring job), so a notification that cannot be written is
logged and never turns the finished event into an error.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

from django.db import DatabaseError
from django.dispatch import receiver

from evalhub.competitions import signals as competitions
from evalhub.console import signals as console
from evalhub.notifications.services import events
from evalhub.teams import signals as teams

log = logging.getLogger(__name__)


def _best_effort(func: Callable[..., None]) -> Callable[..., None]:
    @functools.wraps(func)
    def wrapper(sender: object, **kwargs: object) -> None:
        try:
            func(sender, **kwargs)
        except DatabaseError:
            log.exception(
                "could not write notifications for %s %s", func.__name__, kwargs
            )

    return wrapper


@receiver(competitions.submission_scored, dispatch_uid="notify-run-scored")
@_best_effort
def on_submission_scored(sender: object, submission_id: int, **kwargs: object) -> None:
    events.run_scored(submission_id=submission_id)


@receiver(competitions.submission_failed, dispatch_uid="notify-run-failed")
@_best_effort
def on_submission_failed(sender: object, submission_id: int, **kwargs: object) -> None:
    events.run_failed(submission_id=submission_id)


@receiver(competitions.submission_rejected, dispatch_uid="notify-run-rejected")
@_best_effort
def on_submission_rejected(
    sender: object, submission_id: int, **kwargs: object
) -> None:
    events.run_rejected(submission_id=submission_id)


@receiver(competitions.registration_decided, dispatch_uid="notify-registration")
@_best_effort
def on_registration_decided(
    sender: object, registration_id: int, **kwargs: object
) -> None:
    events.registration_decided(registration_id=registration_id)


@receiver(competitions.test_set_revealed, dispatch_uid="notify-revealed")
@_best_effort
def on_test_set_revealed(sender: object, test_set_id: int, **kwargs: object) -> None:
    events.test_set_revealed(test_set_id=test_set_id)


@receiver(competitions.gold_released, dispatch_uid="notify-gold-released")
@_best_effort
def on_gold_released(sender: object, task_id: int, **kwargs: object) -> None:
    events.gold_released(task_id=task_id)


@receiver(competitions.creator_granted, dispatch_uid="notify-creator-granted")
@_best_effort
def on_creator_granted(sender: object, change_id: int, **kwargs: object) -> None:
    events.creator_granted(change_id=change_id)


@receiver(teams.invitation_created, dispatch_uid="notify-invitation-created")
@_best_effort
def on_invitation_created(sender: object, invitation_id: int, **kwargs: object) -> None:
    events.invitation_created(invitation_id=invitation_id)


@receiver(teams.invitation_accepted, dispatch_uid="notify-invitation-accepted")
@_best_effort
def on_invitation_accepted(
    sender: object, invitation_id: int, **kwargs: object
) -> None:
    events.invitation_accepted(invitation_id=invitation_id)


@receiver(console.announcement_posted, dispatch_uid="notify-announcement")
@_best_effort
def on_announcement_posted(
    sender: object, announcement_id: int, **kwargs: object
) -> None:
    events.announcement_posted(announcement_id=announcement_id)
