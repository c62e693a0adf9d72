"""Django's error handlers (``handler400`` ... ``handler500`` in ``evalhub/urls.py``)
and the CSRF failure view: each the site's error page (``error_pages``)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from evalhub.competitions.error_pages import error_page


def bad_request(
    request: HttpRequest, exception: Exception | None = None
) -> HttpResponse:
    return error_page(request, 400)


def permission_denied(
    request: HttpRequest, exception: Exception | None = None
) -> HttpResponse:
    return error_page(request, 403)


def page_not_found(
    request: HttpRequest, exception: Exception | None = None
) -> HttpResponse:
    return error_page(request, 404)


def server_error(request: HttpRequest) -> HttpResponse:
    return error_page(request, 500)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    return error_page(
        request,
        403,
        text="The form could not be accepted: it was open for too long, or the "
        "browser blocks the site's cookies. Go back, reload the page and send the "
        "form again (with cookies allowed for this site).",
    )
