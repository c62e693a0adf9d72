"""Accounts are django-allauth's (``/accounts/login/``, ``signup/``, ``logout/``,
``email/``, ``password/reset/``, ``confirm-email/<key>/`` and the rest of
``allauth.account.urls``); evalhub adds its templates and the adapter only."""

from __future__ import annotations

from django.urls import include, path

urlpatterns = [path("", include("allauth.account.urls"))]
