"""Creating, checking and revoking API tokens (stored as SHA-256 digests only)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.http import HttpRequest
from django.utils import timezone

from evalhub.api.models import ApiToken, digest_of

TOKEN_PREFIX = "evh_"
#: last_used_at is written at most this often per token.
TOUCH_EVERY = timedelta(minutes=1)


@dataclass(frozen=True, slots=True)
class NewToken:
    token: ApiToken
    secret: str  # shown once, never stored


def create(*, user: object, name: str) -> NewToken:
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user,
        name=(name.strip() or "token")[:100],
        prefix=secret[: len(TOKEN_PREFIX) + 6],
        digest=digest_of(secret),
    )
    return NewToken(token=token, secret=secret)


def authenticate(*, secret: str) -> object | None:
    """The active user owning the token, or None."""
    if not secret.startswith(TOKEN_PREFIX):
        return None
    token = (
        ApiToken.objects.filter(digest=digest_of(secret), revoked_at=None)
        .select_related("user")
        .first()
    )
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > TOUCH_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user


def user_of_request(request: HttpRequest) -> object | None:
    """The user of a request's ``Authorization: Bearer`` token, or None: registered
    with the core's rate limiter so API submissions count per user, not per address."""
    scheme, _, secret = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        return None
    return authenticate(secret=secret.strip())


def revoke(*, user: object, token_id: int) -> bool:
    return ApiToken.revoke(token_id, user_id=user.pk)  # type: ignore[attr-defined]
