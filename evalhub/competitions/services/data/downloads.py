"""Who may download a test set's file: the one rule of the task page's file links
and the REST API's files (``evalhub data pull``). A file the viewer may not know of
is "not found"; a file the viewer may know of but not have yet (data terms not
accepted, ``services/gates``) is refused with the reason and its link."""

from __future__ import annotations

from evalhub.competitions.models import TestSetFile
from evalhub.competitions.services import gates, roles
from evalhub.competitions.services.boards import access


class NotFound(Exception):
    """No such file for this viewer (hidden gold, a task they may not see)."""


def check(*, user: object, file: TestSetFile) -> TestSetFile:
    """``file`` if ``user`` may download it now. Raises ``NotFound`` or
    ``gates.Refused`` (the reason and the link where to put it right)."""
    task = file.test_set.phase.task
    if not access.can_see_task(user, task):
        raise NotFound
    if file.private and not (roles.is_organiser(user, task) or task.gold_released):
        raise NotFound
    gates.check(task=task, user=user, action=gates.DOWNLOAD)
    return file
