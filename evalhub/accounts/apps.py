from __future__ import annotations

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "evalhub.accounts"
    label = "accounts"

    def ready(self) -> None:
        from allauth.account.signals import email_confirmed

        from evalhub.accounts import addresses

        email_confirmed.connect(
            addresses.withdraw_other_claims,
            dispatch_uid="evalhub.accounts.withdraw_other_claims",
        )
