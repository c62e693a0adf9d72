from __future__ import annotations

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "evalhub.accounts"
    label = "accounts"
