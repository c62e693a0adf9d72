"""Whether a participant may get a task's files, submit a run or register a team
now, as the feature apps say (``signals.participation_check``): the data terms of
the participation app, the profile a task requires. The core does not know them; it
asks here on every path that hands out a file (the task's file links, the REST API's
files, ``evalhub data pull``), submits (the submit page, the API, ``evalhub
submit``) or registers, so each path gives the same answer with the same link."""

from __future__ import annotations

from dataclasses import dataclass

from evalhub.competitions import public_url, signals
from evalhub.competitions.models import SharedTask
from evalhub.competitions.services import roles

DOWNLOAD, SUBMIT, REGISTER = "download", "submit", "register"
ACTIONS = (DOWNLOAD, SUBMIT, REGISTER)


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why not (plain text) and the site path where the user can put it right."""

    message: str
    path: str

    @property
    def url(self) -> str:
        """The path as a link anyone can follow (the site's public address)."""
        return public_url.absolute(self.path)

    def __str__(self) -> str:
        return f"{self.message} {self.url}"


class Refused(Exception):
    """A service was asked for what a ``Refusal`` forbids."""

    def __init__(self, refusal: Refusal):
        self.refusal = refusal
        super().__init__(str(refusal))


def refusal(*, task: SharedTask, user: object, action: str) -> Refusal | None:
    """The first reason a feature app gives why ``user`` may not do ``action`` on
    ``task`` now, or None. Organisers of the task are never refused here."""
    if action not in ACTIONS:
        raise ValueError(f"unknown action {action!r}")
    if roles.is_organiser(user, task):
        return None
    for _receiver, answer in signals.participation_check.send(
        sender=SharedTask, task=task, user=user, action=action
    ):
        if answer:
            return answer
    return None


def check(*, task: SharedTask, user: object, action: str) -> None:
    """Raise ``Refused`` when :func:`refusal` gives a reason."""
    answer = refusal(task=task, user=user, action=action)
    if answer is not None:
        raise Refused(answer)
