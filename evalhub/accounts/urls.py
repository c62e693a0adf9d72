"""Accounts are django-allauth's (``/accounts/login/``, ``signup/``, ``logout/``,
``email/``, ``password/reset/``, ``confirm-email/<key>/`` and the rest of
``allauth.account.urls``); evalhub adds its templates and the adapters only.

Sign-in through another site: each provider's ``login/`` and ``login/callback/``
(``/accounts/github/...``, ``/accounts/orcid/...``, ``/accounts/oidc/<id>/...``),
and ``3rdparty/``, where a signed-in user sees and removes the linked accounts."""

from __future__ import annotations

from allauth.urls import build_provider_urlpatterns
from django.urls import include, path

urlpatterns = [
    path("", include("allauth.account.urls")),
    path("3rdparty/", include("allauth.socialaccount.urls")),
    *build_provider_urlpatterns(),
]
