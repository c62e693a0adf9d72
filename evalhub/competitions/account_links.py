"""The header's account links (``base_account.html``): the part of every page that
is its viewer's own, drawn from a few answers about the viewer and the task the
page is about, and nothing else.

The template is rendered with those answers as its only context (no request, no
context processors), so its output is a function of them: each process keeps the
drawings it made (``_drawn``, keyed on the answers and the script prefix its
addresses start with) and a viewer whose answers did not change gets the same
bytes without a template render. The CSRF token of the log-out form is a hole in
the kept drawing, filled per request (``links``).

The answers: whether the viewer is signed in, their user name, whether they are
staff and may create tasks (the core's), the task's slug and title, and those
feature apps register from their ``ready()`` (``register_answer``: the
notifications' unread count, the annotations' link), each asked through the
header's kept answers (``evalhub.cache.kept_for_user``: one cache round trip)."""

from __future__ import annotations

import functools
from collections.abc import Callable

from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.template.loader import get_template
from django.urls import get_script_prefix
from django.utils.safestring import SafeString, mark_safe

from evalhub.competitions.services import roles

TEMPLATE = "base_account.html"
#: The hole for the log-out form's token (an HTML comment: escaped text cannot
#: forge one).
CSRF_HOLE = mark_safe("<!--account:csrf-->")
_ANSWERS: dict[str, Callable[[object], object]] = {}


def register_answer(name: str, answer: Callable[[object], object]) -> None:
    """Give the template ``name``: ``answer(user)`` for a signed-in viewer (hashable;
    cheap: it is asked on every page), None for an anonymous one."""
    _ANSWERS[name] = answer


def answers(user: object, task: object) -> tuple[tuple[str, object], ...]:
    """Everything the account links show of ``user`` and ``task``."""
    signed_in = bool(getattr(user, "is_authenticated", False))
    found: dict[str, object] = {
        "signed_in": signed_in,
        "task_slug": getattr(task, "slug", "") or "",
        "task_title": getattr(task, "title", "") or "",
        "username": user.get_username() if signed_in else "",  # type: ignore[attr-defined]
        "is_staff": signed_in and bool(user.is_staff),  # type: ignore[attr-defined]
        "may_create_tasks": signed_in and roles.header_may_create_tasks(user),
    }
    for name, answer in _ANSWERS.items():
        found[name] = answer(user) if signed_in else None
    return tuple(sorted(found.items()))


def links(
    request: HttpRequest | None, task: object, token: str | None = None
) -> SafeString:
    """The account links of ``request``'s viewer on a page about ``task`` (a page
    rendered without a request: an anonymous viewer's); ``token``: the CSRF token
    the page already masked (else masked here, when the links hold the log-out
    form)."""
    user = getattr(request, "user", None)
    html = _drawn(get_script_prefix(), answers(user, task))
    if CSRF_HOLE in html:
        html = html.replace(CSRF_HOLE, token or get_token(request))
    return mark_safe(html)  # noqa: S308 - the template's output, escaped there


@functools.lru_cache(maxsize=4096)
def _drawn(prefix: str, found: tuple[tuple[str, object], ...]) -> str:
    """The template rendered with ``found`` alone (``prefix`` keys the addresses)."""
    del prefix  # the addresses' reversal reads it from the thread
    return get_template(TEMPLATE).render({**dict(found), "csrf_token": CSRF_HOLE})
