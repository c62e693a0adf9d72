"""Rate limits on logins and run submissions, counted in Django's cache (Redis).

Fixed windows:

- **Logins**: failed ones only, on every login form (``LOGIN_FORMS``: the accounts'
  and the admin's). At most ``LOGIN_RATE`` failures per client address and
  user name, the name normalised as Django authenticates it (NFKC, so a fullwidth
  ``ｏrganiser`` is ``organiser``; case-folded too), and at most
  ``LOGIN_ADDRESS_RATE`` per client address across all names (one password tried on
  many names). Every attempt is counted when it arrives (so parallel guesses cannot
  slip past the limit) and taken back afterwards unless a password was checked and
  found wrong (Django's ``user_login_failed`` marks the request, ``login_failed``):
  a lab behind one address logs in as often as it likes, a form sent without a
  password or by someone already signed in costs nothing, and a correct login
  clears its name's failures (``user_logged_in`` marks the request,
  ``login_succeeded``).
- **Submissions**: ``SUBMIT_RATE`` per user, the browser's session user or the API
  token's user (an API app registers how a token names its user: the core does not
  know tokens), so users behind one address or proxy have their own budgets; per
  address only when no user is known.
- **Changes of final runs and run visibility** (each one refreshes a phase's
  statistics and plots on the workers) are counted per user at ``SUBMIT_RATE`` too,
  in a bucket of their own.

Submissions and changes are counted whatever their outcome. Over the limit the
request gets a 429 with ``Retry-After`` and never reaches the view. With the cache
unreachable, requests pass (the limits protect the site, they must not take it down).
"""

from __future__ import annotations

import logging
import re
import time
import unicodedata
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse

from evalhub.competitions.error_pages import error_page

log = logging.getLogger(__name__)

#: Login forms -> the POST field holding the user name: the accounts' (allauth's
#: ``login``) and the admin's (Django's ``username``). A path's own field only, so a
#: request cannot pick the name it is counted under with a second field.
LOGIN_FORMS = {"/accounts/login/": "login", "/admin/login/": "username"}
SUBMIT_PATHS = re.compile(
    r"^/(tasks/[-\w]+/[-\w]+/submit/|api/tasks/[-\w]+/phases/[-\w]+/runs/?)$"
)

CHOICE_PATHS = re.compile(r"^/runs/\d+/(final|visibility)/$")


def parse_rate(rate: str) -> tuple[int, int]:
    """ "10/300" -> (10 requests, per 300 seconds)."""
    count, _, seconds = rate.partition("/")
    return int(count), int(seconds)


def _key(scope: str, ident: str, window: int, now: float) -> str:
    return f"ratelimit:{scope}:{ident}:{int(now // window)}"


def hit(scope: str, ident: str, rate: str, *, now: float | None = None) -> int:
    """Count one attempt; returns 0 if allowed, else seconds until the window ends."""
    limit, window = parse_rate(rate)
    now = time.time() if now is None else now
    slot = int(now // window)
    key = _key(scope, ident, window, now)
    cache.add(key, 0, timeout=window + 5)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.add(key, 1, timeout=window + 5)
        count = 1
    if count > limit:
        return max(1, int((slot + 1) * window - now))
    return 0


def take_back(scope: str, ident: str, rate: str, *, now: float) -> None:
    """Uncount the attempt ``hit`` counted at ``now`` (it was not a failure)."""
    try:
        cache.decr(_key(scope, ident, parse_rate(rate)[1], now))
    except ValueError:  # the window's count expired meanwhile
        pass


def forget(scope: str, ident: str, rate: str, *, now: float) -> None:
    """Clear every attempt counted in the window of ``now``."""
    cache.delete(_key(scope, ident, parse_rate(rate)[1], now))


def client_address(request: HttpRequest) -> str:
    """REMOTE_ADDR; behind a proxy, set ``EVALHUB_RATELIMIT_CLIENT_HEADER`` (e.g.
    ``HTTP_X_REAL_IP``) to a header the proxy overwrites."""
    header = settings.RATELIMIT_CLIENT_HEADER
    if header and request.META.get(header):
        return request.META[header].split(",")[0].strip()
    return request.META.get("REMOTE_ADDR", "unknown")


#: Callables ``request -> user or None`` naming the user of a request that carries
#: no session (e.g. an API token); set by feature apps in ``AppConfig.ready()``.
USER_RESOLVERS: list[Callable[[HttpRequest], object | None]] = []


def normalised_username(raw: str) -> str:
    """The name Django authenticates (``UsernameField``: NFKC, stripped), case-folded
    so that case variants share one budget."""
    return unicodedata.normalize("NFKC", raw).strip().casefold()[:150]


def _user(request: HttpRequest) -> object | None:
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return user
    for resolve in USER_RESOLVERS:
        found = resolve(request)
        if found is not None:
            return found
    return None


Rule = tuple[str, str, str]

#: Set on a request by ``login_succeeded``: its login attempt was not a failure.
_LOGGED_IN = "_evalhub_login_succeeded"
#: Set on a request by ``login_failed``: a password was checked and was wrong.
_FAILED = "_evalhub_login_failed"


def login_succeeded(*, request: HttpRequest | None = None, **_: object) -> None:
    """Receiver of ``user_logged_in`` (connected in ``receivers.connect``): the
    middleware clears the name's failures once the view returns."""
    if request is not None:
        setattr(request, _LOGGED_IN, True)


def login_failed(*, request: HttpRequest | None = None, **_: object) -> None:
    """Receiver of ``user_login_failed`` (connected in ``receivers.connect``): this
    request's attempt stays counted."""
    if request is not None:
        setattr(request, _FAILED, True)


def _rules(request: HttpRequest) -> list[Rule]:
    if request.method != "POST":
        return []
    field = LOGIN_FORMS.get(request.path_info)
    if field is not None:
        address = client_address(request)
        name = normalised_username(request.POST.get(field, ""))
        return [
            ("login", f"{address}|{name}", settings.LOGIN_RATE),
            ("login-address", address, settings.LOGIN_ADDRESS_RATE),
        ]
    scope = (
        "submit"
        if SUBMIT_PATHS.match(request.path_info)
        else "choice"
        if CHOICE_PATHS.match(request.path_info)
        else None
    )
    if scope is None:
        return []
    user = _user(request)
    if user is not None:
        joined = int(user.date_joined.timestamp())  # type: ignore[attr-defined]
        ident = f"user-{user.pk}-{joined}"  # type: ignore[attr-defined]
    else:
        ident = f"addr-{client_address(request)}"
    return [(scope, ident, settings.SUBMIT_RATE)]


_WHAT = {
    "login": "login attempts",
    "login-address": "login attempts",
    "submit": "submissions",
    "choice": "changes to your runs",
}


class RateLimitMiddleware:
    """Goes after AuthenticationMiddleware (submissions are counted per user)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        wait, scope = 0, ""
        now = time.time()
        rules = _rules(request)
        for rule_scope, ident, rate in rules:
            try:
                waited = hit(rule_scope, ident, rate, now=now)
            except Exception:  # noqa: BLE001 - Redis down: fail open, loudly
                log.warning("rate limit check failed for %s", rule_scope)
                waited = 0
            if waited > wait:
                wait, scope = waited, rule_scope
        if wait:
            return error_page(
                request, 429, text=f"Too many {_WHAT[scope]}.", retry_after=wait
            )
        response = self.get_response(request)
        if getattr(request, _LOGGED_IN, False):
            _not_a_failure(rules, now=now, succeeded=True)
        elif not getattr(request, _FAILED, False):
            _not_a_failure(rules, now=now, succeeded=False)
        return response


def _not_a_failure(rules: list[Rule], *, now: float, succeeded: bool) -> None:
    """A login attempt was no failure: the counts take it back, and a successful
    one clears its name's failures."""
    for scope, ident, rate in rules:
        try:
            if scope == "login" and succeeded:
                forget(scope, ident, rate, now=now)
            elif scope in ("login", "login-address"):
                take_back(scope, ident, rate, now=now)
        except Exception:  # noqa: BLE001 - Redis down: the limits fail open
            log.warning("rate limit refund failed for %s", scope)
