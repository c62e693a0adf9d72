"""The viewer's time zone, as the browser reports it in the ``tz`` cookie (set by
static/evalhub.js); unknown or missing values fall back to UTC. Forms read times
in it (``console.forms.ZonedTimes``: the organiser's zone is the default).

Pages do not draw times in it: the one rule of times on pages is
``evalhub_tags.when``, which writes every moment in UTC, labelled so, and the
browser redraws each in its own zone (the footer names the zone shown). So the
first page a viewer sees, before the cookie exists, shows the same zone as the
next ones, and cached pages are the same for every viewer."""

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
