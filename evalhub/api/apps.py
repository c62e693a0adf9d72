from __future__ import annotations

from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "evalhub.api"
    label = "api"
    verbose_name = "API and exports"

    def ready(self) -> None:
        from evalhub.api.services import tokens
        from evalhub.competitions import ratelimit

        if tokens.user_of_request not in ratelimit.USER_RESOLVERS:
            ratelimit.USER_RESOLVERS.append(tokens.user_of_request)
