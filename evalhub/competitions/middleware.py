"""Show times in the viewer's time zone: the browser reports it in the ``tz`` cookie
(set by static/evalhub.js); unknown or missing values fall back to UTC.

The one rule of times on pages: a page shows every time in this zone, and says so
(the footer names it with ``evalhub_tags.shown_zone``; each time is written by the
``when`` filter with the zone's label). Cached pages and board fragments are keyed
on it."""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable
from urllib.parse import unquote

from django.http import HttpRequest, HttpResponse
from django.utils import timezone


class ViewerTimezoneMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # The browser writes the name URL-encoded ("Europe%2FParis").
        name = unquote(request.COOKIES.get("tz", ""))
        try:
            timezone.activate(
                zoneinfo.ZoneInfo(name) if name else zoneinfo.ZoneInfo("UTC")
            )
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            timezone.activate(zoneinfo.ZoneInfo("UTC"))
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
