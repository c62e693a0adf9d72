"""The WSGI application gunicorn serves: Django's handler, with the URL resolved
once per address rather than once per request (``Handler``)."""

from __future__ import annotations

import functools
import os

import django
from django.core.handlers.wsgi import WSGIHandler
from django.urls import ResolverMatch, URLResolver, get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalhub.settings")


class Handler(WSGIHandler):
    """Django's handler, resolving each address through a bounded cache.

    Resolving the leaderboard's address tried some sixty URL patterns, about a
    tenth of the CPU of a page served from the page cache (bench/README.md, issue
    47). The URL patterns do not change while the process runs, so the match of an
    address is the same every time: it is kept (the most recent ``RESOLVED``
    addresses; an address that matches nothing is not kept). Views get its
    arguments as keyword arguments (copies), as with Django's own handler."""

    def resolve_request(self, request):  # noqa: ANN001, ANN201
        if hasattr(request, "urlconf"):  # a middleware chose another URLconf
            return super().resolve_request(request)
        match = _resolved(get_resolver(), request.path_info)
        request.resolver_match = match
        return match


#: Addresses whose match is kept (the run pages' addresses are many).
RESOLVED = 2048


@functools.lru_cache(maxsize=RESOLVED)
def _resolved(resolver: URLResolver, path: str) -> ResolverMatch:
    return resolver.resolve(path)


django.setup(set_prefix=False)
application = Handler()
