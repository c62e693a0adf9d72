"""The notifications app listens to the other apps' signals; they never import it."""

from __future__ import annotations

from django.dispatch import receiver

from evalhub.competitions import signals as competitions
from evalhub.notifications.services import events
from evalhub.teams import signals as teams


@receiver(competitions.submission_scored, dispatch_uid="notify-run-scored")
def on_submission_scored(sender: object, submission_id: int, **kwargs: object) -> None:
    events.run_scored(submission_id=submission_id)


@receiver(competitions.submission_failed, dispatch_uid="notify-run-failed")
def on_submission_failed(sender: object, submission_id: int, **kwargs: object) -> None:
    events.run_failed(submission_id=submission_id)


@receiver(competitions.registration_decided, dispatch_uid="notify-registration")
def on_registration_decided(
    sender: object, registration_id: int, **kwargs: object
) -> None:
    events.registration_decided(registration_id=registration_id)


@receiver(competitions.test_set_revealed, dispatch_uid="notify-revealed")
def on_test_set_revealed(sender: object, test_set_id: int, **kwargs: object) -> None:
    events.test_set_revealed(test_set_id=test_set_id)


@receiver(competitions.gold_released, dispatch_uid="notify-gold-released")
def on_gold_released(sender: object, task_id: int, **kwargs: object) -> None:
    events.gold_released(task_id=task_id)


@receiver(teams.invitation_created, dispatch_uid="notify-invitation-created")
def on_invitation_created(sender: object, invitation_id: int, **kwargs: object) -> None:
    events.invitation_created(invitation_id=invitation_id)


@receiver(teams.invitation_accepted, dispatch_uid="notify-invitation-accepted")
def on_invitation_accepted(
    sender: object, invitation_id: int, **kwargs: object
) -> None:
    events.invitation_accepted(invitation_id=invitation_id)
