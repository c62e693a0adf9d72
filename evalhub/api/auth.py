"""Bearer-token authentication of the REST API (tokens stored hashed,
``services/tokens.py``), and the one place its scopes are enforced: every endpoint's
``auth`` names the scope it needs (``scopes.py`` says what each scope allows); a
token without it gets 403 naming the missing scope."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from django.urls import reverse
from ninja.errors import HttpError
from ninja.security import HttpBearer

from evalhub.api import scopes
from evalhub.api.services import tokens


class TokenAuth(HttpBearer):
    """A valid token with the scope ``scope`` is required."""

    def __init__(self, scope: str = scopes.READ) -> None:
        super().__init__()
        self.scope = scope

    def authenticate(self, request: HttpRequest, token: str) -> object | None:
        try:
            found = tokens.check(secret=token)
        except tokens.TokenRefused as exc:
            raise HttpError(401, str(exc)) from None
        match = request.resolver_match
        why = scopes.refusal(
            found,
            needed=self.scope,
            task_slug=match.kwargs.get("slug") if match else None,
            where=request.build_absolute_uri(reverse("api:token-list")),
        )
        if why:
            raise HttpError(403, why)
        request.api_token = found  # type: ignore[attr-defined]
        return tokens.acting_user(found)


class OptionalTokenAuth(TokenAuth):
    """No header: the anonymous public. A header with a bad token: 401."""

    def __call__(self, request: HttpRequest) -> object | None:
        if not request.headers.get(self.header):
            return AnonymousUser()
        return super().__call__(request)
