"""The answer to a request allauth's own limits refuse (reset mails, sign-ups,
changes of address or password): 429 with ``Retry-After``, as the site's own limits
answer. allauth does not say which of its limits was hit, so the wait given is the
longest window among its configured limits: after it, every one of them has room
again."""

from __future__ import annotations

from allauth.account import app_settings
from allauth.core.internal.ratelimit import parse_rates
from django.http import HttpRequest, HttpResponse

from evalhub.competitions.error_pages import error_page


def longest_window() -> int:
    """Seconds after which every configured allauth limit allows a request again."""
    windows = [
        rate.duration
        for config in app_settings.RATE_LIMITS.values()
        for rate in parse_rates(config)
    ]
    return int(max(windows, default=60))


def too_many_requests(request: HttpRequest) -> HttpResponse:
    return error_page(
        request,
        429,
        text="This form was used too often in a short time, from here or for this "
        "account or address.",
        retry_after=longest_window(),
    )
