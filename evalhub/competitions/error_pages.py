"""The site's error pages: every refusal a browser can meet (400, 403, 404, 413, 429,
500, a failed CSRF check) is the site's own page, with its header, a sentence on what
happened and a way on (back, the task list, log in), never a bare text. Programs
(the REST API under ``/api/``) get the same sentence as plain text.

One renderer, :func:`error_page`; Django's handlers (``evalhub/urls.py``), the upload
limit (``upload_limits``), the rate limits (``ratelimit``, allauth's through
``accounts.views``) and views that refuse a request all call it."""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.urls import reverse

log = logging.getLogger(__name__)

#: Status -> (title, what happened): the default words of each page.
PAGES = {
    400: (
        "Bad request",
        "The page could not understand what was sent: a form incomplete or "
        "changed on the way, or a link cut short.",
    ),
    403: ("Not allowed", "You may not open this page or do this here."),
    404: (
        "Page not found",
        "There is no page at this address, or it is not shown to you.",
    ),
    413: ("File too large", "The upload is larger than the site accepts."),
    429: ("Too many requests", "This was asked for too often in a short time."),
    500: (
        "Something went wrong",
        "The server failed to answer this request. The error is logged for the "
        "site's administrators; please try again in a moment.",
    ),
}

#: The page shown when even the site's page cannot be drawn (its database down).
_BARE = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">'
    '<meta name="viewport" content="width=device-width, initial-scale=1">'
    "<title>{title} · evalhub</title>"
    '<link rel="stylesheet" href="/static/evalhub.css"></head><body>'
    '<header class="top"><a class="brand" href="/">evalhub</a></header>'
    '<main id="main"><h1>{title}</h1><p>{text}</p>'
    '<p><a href="/">Go to the list of tasks</a></p></main></body></html>'
)


def for_programs(request: HttpRequest) -> bool:
    """A request of the REST API's clients, which read plain text, not pages."""
    return request.path.startswith("/api/")


def back_link(request: HttpRequest) -> str:
    """The page the visitor came from, if it is on this site and not this very
    page (a form posted to its own address goes back to the form)."""
    referer = request.headers.get("Referer", "")
    bits = urlsplit(referer)
    if not referer or bits.netloc != request.get_host():
        return ""
    if request.method == "GET" and bits.path == request.path:
        return ""
    return referer


def error_page(
    request: HttpRequest,
    status: int,
    *,
    text: str = "",
    retry_after: int | None = None,
    account: bool = True,
) -> HttpResponse:
    """The site's page for ``status`` with ``text`` (plain text; default: the
    status's own words), ``Retry-After`` when given. ``account``: False where the
    request's session is not read yet (the upload limit answers before it), so the
    header leaves out the account's links."""
    title, default = PAGES[status]
    text = text or default
    if retry_after is not None:
        text = f"{text} Please try again in {retry_after} seconds."
    if for_programs(request):
        response = HttpResponse(
            text, status=status, content_type="text/plain; charset=utf-8"
        )
    else:
        response = HttpResponse(_page(request, status, title, text, account=account))
        response.status_code = status
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


def _page(
    request: HttpRequest, status: int, title: str, text: str, *, account: bool
) -> str:
    context = {
        "status": status,
        "title": title,
        "text": text,
        "back": back_link(request),
        "home": reverse("competitions:task-list"),
        "login": reverse("account_login") if status in (403, 404) else "",
        "account": account,
    }
    try:
        return render_to_string("errors/error.html", context, request=request)
    except Exception:  # noqa: BLE001 - e.g. the database down while drawing a 500
        log.exception("the error page %s could not be drawn", status)
        from django.utils.html import escape

        return _BARE.format(title=escape(title), text=escape(text))
