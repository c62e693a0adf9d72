from __future__ import annotations

from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "evalhub.api"
    label = "api"
    verbose_name = "API and exports"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_save

        from evalhub.api.services import tokens
        from evalhub.competitions import ratelimit

        if tokens.user_of_request not in ratelimit.USER_RESOLVERS:
            ratelimit.USER_RESOLVERS.append(tokens.user_of_request)
        post_save.connect(
            tokens.revoke_on_password_change,
            sender=get_user_model(),
            dispatch_uid="evalhub.api.revoke_on_password_change",
        )
