"""Rate limits on logins and run submissions, counted in Django's cache (Redis).

Fixed windows: at most ``LOGIN_RATE`` login attempts per client address and user
name, and ``SUBMIT_RATE`` submission attempts per user (or address when anonymous) in
each window, whatever their outcome. Changes of final runs and run visibility (each
one refreshes a phase's statistics and plots on the workers) are counted per user
at ``SUBMIT_RATE`` too, in a bucket of their own. Over the limit the request gets a 429 with
``Retry-After`` and never reaches the view. With the cache unreachable, requests pass
(the limits protect the site, they must not take it down).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse

log = logging.getLogger(__name__)

LOGIN_PATHS = re.compile(r"^/(accounts|admin)/login/$")
SUBMIT_PATHS = re.compile(
    r"^/(tasks/[-\w]+/[-\w]+/submit/|api/tasks/[-\w]+/phases/[-\w]+/runs/?)$"
)

CHOICE_PATHS = re.compile(r"^/runs/\d+/(final|visibility)/$")


def parse_rate(rate: str) -> tuple[int, int]:
    """ "10/300" -> (10 requests, per 300 seconds)."""
    count, _, seconds = rate.partition("/")
    return int(count), int(seconds)


def hit(scope: str, ident: str, rate: str, *, now: float | None = None) -> int:
    """Count one attempt; returns 0 if allowed, else seconds until the window ends."""
    limit, window = parse_rate(rate)
    now = time.time() if now is None else now
    slot = int(now // window)
    key = f"ratelimit:{scope}:{ident}:{slot}"
    cache.add(key, 0, timeout=window + 5)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.add(key, 1, timeout=window + 5)
        count = 1
    if count > limit:
        return max(1, int((slot + 1) * window - now))
    return 0


def client_address(request: HttpRequest) -> str:
    """REMOTE_ADDR; behind a proxy, set ``EVALHUB_RATELIMIT_CLIENT_HEADER`` (e.g.
    ``HTTP_X_REAL_IP``) to a header the proxy overwrites."""
    header = settings.RATELIMIT_CLIENT_HEADER
    if header and request.META.get(header):
        return request.META[header].split(",")[0].strip()
    return request.META.get("REMOTE_ADDR", "unknown")


def _rule(request: HttpRequest) -> tuple[str, str, str] | None:
    if request.method != "POST":
        return None
    if LOGIN_PATHS.match(request.path_info):
        username = request.POST.get("username", "").strip().lower()[:150]
        return "login", f"{client_address(request)}|{username}", settings.LOGIN_RATE
    scope = (
        "submit"
        if SUBMIT_PATHS.match(request.path_info)
        else "choice"
        if CHOICE_PATHS.match(request.path_info)
        else None
    )
    if scope is not None:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            joined = int(user.date_joined.timestamp())  # a reused pk is a new user
            ident = f"user-{user.pk}-{joined}"
        else:
            ident = f"addr-{client_address(request)}"
        return scope, ident, settings.SUBMIT_RATE
    return None


class RateLimitMiddleware:
    """Goes after AuthenticationMiddleware (submissions are counted per user)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        rule = _rule(request)
        if rule is not None:
            scope, ident, rate = rule
            try:
                wait = hit(scope, ident, rate)
            except Exception:  # noqa: BLE001 - Redis down: fail open, loudly
                log.warning("rate limit check failed for %s", scope)
                wait = 0
            if wait:
                what = {
                    "login": "login attempts",
                    "submit": "submissions",
                    "choice": "changes to your runs",
                }[scope]
                response = HttpResponse(
                    f"Too many {what}; try again in {wait} s.",
                    status=429,
                    content_type="text/plain; charset=utf-8",
                )
                response["Retry-After"] = str(wait)
                return response
        return self.get_response(request)
