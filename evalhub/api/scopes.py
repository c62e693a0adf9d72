"""What an API token may do: the one rule, asked by ``auth.py`` for every endpoint of
the REST API (each endpoint names the scope it needs in its ``auth``).

- ``read``: every reading call, as its user sees things without organiser powers
  (public boards, the user's own team's runs);
- ``submit``: ``read`` and submitting runs for the user's teams;
- ``organise``: ``read`` and the organisers' calls, for the tasks named on the token
  (of those its user organises); on those tasks its reads see what organisers see.

A token without ``organise`` gives no organiser power anywhere, even when its user
organises tasks or is a superuser (``competitions.models.limit_organising``)."""

from __future__ import annotations

from collections.abc import Iterable

from evalhub.api.models import ApiToken, Scope
from evalhub.competitions.models import SharedTask
from evalhub.competitions.services.boards import access

READ, SUBMIT, ORGANISE = Scope.READ, Scope.SUBMIT, Scope.ORGANISE

#: scope of a token -> the scopes of the calls it may make.
GRANTS: dict[str, frozenset[str]] = {
    READ: frozenset({READ}),
    SUBMIT: frozenset({READ, SUBMIT}),
    ORGANISE: frozenset({READ, ORGANISE}),
}

#: What a call of each scope does, for refusals.
NEEDED_FOR = {
    READ: "reading",
    SUBMIT: "submitting runs",
    ORGANISE: "the organisers' calls",
}


def allows(scope: str, needed: str) -> bool:
    return needed in GRANTS.get(scope, frozenset())


def refusal(
    token: ApiToken, *, needed: str, task_slug: str | None, where: str
) -> str | None:
    """Why ``token`` may not make a call needing ``needed`` (on the task
    ``task_slug``, if the call names one), or None. ``where``: the page on which a
    token of the right scope is made."""
    make = f"Make a token with that scope on the API-token page: {where}"
    if not allows(token.scope, needed):
        target = f" on task {task_slug}" if needed == ORGANISE and task_slug else ""
        return (
            f"This token's scope is “{token.scope}”; {NEEDED_FOR[needed]} needs "
            f"the “{needed}” scope{target}. {make}"
        )
    if needed == ORGANISE and task_slug is not None:
        slugs = organised_slugs(token)
        if task_slug not in slugs and _seen(token, task_slug):
            named = ", ".join(sorted(slugs)) or "no task"
            return (
                f"This token has the “organise” scope for {named} only; this call "
                f"needs the “organise” scope on task {task_slug}. {make}"
            )
    return None


def _seen(token: ApiToken, slug: str) -> bool:
    """The task exists for the token's account (a draft its user does not organise
    is left to the call's own 404: the refusal would tell it exists)."""
    task = SharedTask.objects.filter(slug=slug).first()
    return task is not None and access.can_see_task(token.user, task)


def organised_slugs(token: ApiToken) -> set[str]:
    return set(token.tasks.values_list("slug", flat=True))


def organised_ids(token: ApiToken) -> Iterable[int]:
    """The tasks on which ``token`` has organiser powers (none without ``organise``)."""
    if token.scope != ORGANISE:
        return ()
    return token.tasks.values_list("pk", flat=True)
