"""The leaderboard page as signed-in viewers get it (issue 47): a *shell* of the
whole page, rendered once per change of anything it shows and per audience, and
shared by every viewer of that audience, with each viewer's own parts put in on
each request.

What the shell may hold of its viewer is decided by the audience it is keyed on
(``audience``): the boards fragment's flags (``board_pages.audience``: which
scores, per-item detail and hidden runs the viewer may see) and whether the viewer
organises the task (the page's words for organisers, the package link, the
feature apps' panels); with the address and what the anonymous page's key holds
(``page_keys.vary_on`` and the board versions, task, phase and test set fields), so a change
of the boards shows at once. What is the viewer's own is never in it, only a
hole for it (``fill``):

- the header's account links (``base_account.html``: name, notifications,
  the links their roles give, the log-out form's CSRF token), rendered per request;
- the CSRF token the page's htmx requests send;
- the "you" mark of their teams' rows and a long board's rows of their teams past
  the first ones (``own_rows.mark``, as on every board page).

Pages with a message for the viewer (``django.contrib.messages``) are not served
from or kept as shells: the view renders them whole."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from evalhub.competitions import account_links
from evalhub.competitions.models import Phase, SharedTask, TestSet, Track
from evalhub.competitions.services import roles
from evalhub.competitions.services.boards import (
    access,
    board_pages,
    fragments,
    own_rows,
    page_keys,
)

#: The page the shell is: the leaderboard page with holes for the viewer's parts.
SHELL_TEMPLATE = "competitions/phase_leaderboard_shell.html"
#: The holes (HTML comments: page text is escaped, so none can forge one): the
#: shell template's account block, and the page's ``csrf_token`` wherever used.
_ACCOUNT_HOLE = "<!--viewer:account-->"
_CSRF_HOLE = mark_safe("<!--viewer:csrf-->")


def audience(user: object, phase: Phase, test_sets: Sequence[TestSet]) -> Hashable:
    """What a signed-in page shell depends on of its viewer: viewers with equal
    answers may share one shell (see the module's docstring)."""
    task = phase.task
    return (
        "signed-in",
        board_pages.audience(user, task, test_sets),
        roles.is_organiser(user, task),
    )


def signed_in_leaderboard(
    *,
    request: HttpRequest,
    phase: Phase,
    test_sets: list[TestSet],
    track: Track | None,
    every_row: bool,
) -> str:
    """The leaderboard page for the signed-in viewer of ``request`` (no message for
    them): its audience's shell, rendered and kept unless the cache has it, with the
    viewer's parts put in. While another request renders it, the previous shell
    of the audience; one built on a fragment of the previous boards is served but
    not kept (``fragments.page``)."""
    user = request.user

    def render() -> str:
        context = board_pages.leaderboard_page(
            phase=phase,
            test_sets=test_sets,
            user=user,
            track=track,
            every_row=every_row,
            own_rows_marked=False,
        )
        return render_to_string(
            SHELL_TEMPLATE, {**context, "csrf_token": _CSRF_HOLE}, request=request
        )

    shell = fragments.page(
        test_sets=test_sets, vary_on=_vary_on(request, phase, test_sets), render=render
    )
    return fill(shell, request=request, task=phase.task)


def cached_signed_in_leaderboard(
    *, request: HttpRequest, slug: str, phase_slug: str
) -> str | None:
    """The page ``signed_in_leaderboard`` serves, if the cache holds the shell of
    the viewer's audience for the phase as it is now: one light query
    (``page_keys.light_phase``) and one cache read besides the viewer's parts.
    None (the caller takes the full way, which renders it or answers 404): no
    such phase, a task the viewer may not see, no shell kept yet."""
    found = page_keys.light_phase(slug=slug, phase_slug=phase_slug)
    if found is None:
        return None
    phase, test_sets = found
    user = request.user
    if not access.can_see_task(user, phase.task):
        return None
    board_pages.note_view(phase.pk)
    shell = fragments.kept_page(
        test_sets=test_sets, vary_on=_vary_on(request, phase, test_sets)
    )
    return None if shell is None else fill(shell, request=request, task=phase.task)


def _vary_on(request: HttpRequest, phase, test_sets) -> tuple:  # noqa: ANN001
    """What the shell is kept on besides its boards: the page's and the viewer's
    audience's."""
    return page_keys.vary_on(
        phase=phase,
        path=request.get_full_path(),
        audience=audience(request.user, phase, test_sets),
    )


def fill(shell: str, *, request: HttpRequest, task: SharedTask) -> str:
    """``shell`` with the viewer's parts put in: their teams' rows marked first
    (the placeholders come from the boards fragment only), then the header's
    account links and the CSRF token (masked once for both, as a page rendered
    whole does)."""
    page = own_rows.mark(shell, request.user)
    token = get_token(request)
    account = account_links.links(request, task, token=token)
    return page.replace(_CSRF_HOLE, token).replace(_ACCOUNT_HOLE, account)
