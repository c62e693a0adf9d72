"""Bearer-token authentication of the REST API (tokens stored hashed,
``services/tokens.py``)."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from ninja.security import HttpBearer

from evalhub.api.services import tokens


class TokenAuth(HttpBearer):
    """A valid token is required."""

    def authenticate(self, request: HttpRequest, token: str) -> object | None:
        return tokens.authenticate(secret=token)


class OptionalTokenAuth(TokenAuth):
    """No header: the anonymous public. A header with a bad token: 401."""

    def __call__(self, request: HttpRequest) -> object | None:
        if not request.headers.get(self.header):
            return AnonymousUser()
        return super().__call__(request)
