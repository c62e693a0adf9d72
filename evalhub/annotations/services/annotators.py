"""Organisers assign annotators to their mt_lexicon_probe task."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from evalhub.annotations.models import Annotator
from evalhub.annotations.services import access
from evalhub.competitions.models import SharedTask


class AnnotatorError(ValueError):
    """The user cannot be added (unknown, already an annotator or organiser)."""


def list_annotators(*, task: SharedTask) -> list[Annotator]:
    return list(
        Annotator.objects.filter(task=task)
        .select_related("user", "added_by")
        .order_by("user__username")
    )


def add(*, task: SharedTask, username: str, by: object) -> Annotator:
    """Make the user called ``username`` an annotator of ``task``."""
    username = username.strip()
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise AnnotatorError(f"there is no user called {username!r}")
    if task.organisers.filter(pk=user.pk).exists():
        raise AnnotatorError(f"{username} organises this task and can annotate already")
    if access.is_participant(user, task):
        raise AnnotatorError(
            f"{username} is in a team registered for this task; annotators see "
            "every team's translations"
        )
    try:
        with transaction.atomic():
            return Annotator.objects.create(task=task, user=user, added_by=by)
    except IntegrityError:
        raise AnnotatorError(f"{username} is an annotator already") from None


def remove(*, task: SharedTask, annotator_id: int) -> str | None:
    """Take the role away (their judgements stay); the username, None if absent."""
    row = (
        Annotator.objects.filter(task=task, pk=annotator_id)
        .select_related("user")
        .first()
    )
    if row is None:
        return None
    row.delete()
    return row.user.get_username()
