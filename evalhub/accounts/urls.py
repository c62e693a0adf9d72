"""Accounts are django-allauth's (``/accounts/login/``, ``signup/``, ``logout/``,
``email/``, ``password/reset/``, ``confirm-email/<key>/`` and the rest of
``allauth.account.urls``); evalhub adds its templates and the adapters only.

Sign-in through another site: each provider's ``login/`` and ``login/callback/``
(``/accounts/github/...``, ``/accounts/orcid/...``, ``/accounts/oidc/<id>/...``),
and ``3rdparty/``, where a signed-in user sees, links and removes the linked
accounts. A provider that is not configured has no page: its addresses answer 404
(allauth would fail with 500)."""

from __future__ import annotations

import functools
from collections.abc import Callable

from allauth.socialaccount.models import SocialApp
from allauth.urls import build_provider_urlpatterns
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import URLPattern, URLResolver, include, path


def _configured_only(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except SocialApp.DoesNotExist:
            raise Http404("No such sign-in provider.") from None

    return wrapped


def _guarded(
    patterns: list[URLPattern | URLResolver],
) -> list[URLPattern | URLResolver]:
    out: list[URLPattern | URLResolver] = []
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            out.append(
                URLResolver(
                    pattern.pattern,
                    _guarded(list(pattern.url_patterns)),
                    pattern.default_kwargs,
                    pattern.app_name,
                    pattern.namespace,
                )
            )
        else:
            out.append(
                URLPattern(
                    pattern.pattern,
                    _configured_only(pattern.callback),
                    pattern.default_args,
                    pattern.name,
                )
            )
    return out


urlpatterns = [
    path("", include("allauth.account.urls")),
    path("3rdparty/", include("allauth.socialaccount.urls")),
    *_guarded(build_provider_urlpatterns()),
]
