"""Creating, checking and revoking API tokens (stored as SHA-256 digests only)."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.http import HttpRequest
from django.utils import timezone

from evalhub.api import scopes
from evalhub.api.models import ApiToken, Scope, digest_of
from evalhub.competitions.models import SharedTask, limit_organising
from evalhub.competitions.services import roles

TOKEN_PREFIX = "evh_"
#: last_used_at is written at most this often per token.
TOUCH_EVERY = timedelta(minutes=1)


@dataclass(frozen=True, slots=True)
class NewToken:
    token: ApiToken
    secret: str  # shown once, never stored


class TokenRefused(Exception):
    """The token is unknown, revoked or expired (its message says which)."""


def create(
    *,
    user: object,
    name: str,
    scope: str = Scope.SUBMIT,
    tasks: Iterable[SharedTask] = (),
    expires_at: datetime | None = None,
) -> NewToken:
    """A new token. ``tasks``: the tasks an ``organise`` token organises (only those
    ``user`` organises are kept; other scopes keep none)."""
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user,
        name=(name.strip() or "token")[:100],
        prefix=secret[: len(TOKEN_PREFIX) + 6],
        digest=digest_of(secret),
        scope=Scope(scope),
        expires_at=expires_at,
    )
    if scope == Scope.ORGANISE:
        token.tasks.set([t for t in tasks if roles.is_organiser(user, t)])
    return NewToken(token=token, secret=secret)


def check(*, secret: str) -> ApiToken:
    """The token whose secret is ``secret``, its user loaded, its last use noted;
    TokenRefused if it is unknown, revoked or expired or its user inactive."""
    token = None
    if secret.startswith(TOKEN_PREFIX):
        token = (
            ApiToken.objects.filter(digest=digest_of(secret))
            .select_related("user")
            .first()
        )
    if token is None or not token.user.is_active:
        raise TokenRefused("No such token (mistyped, or its account closed?).")
    if token.revoked_at is not None:
        raise TokenRefused(
            "This token was revoked (by its owner, or because the account's "
            "password changed). Make a new one on the API-token page."
        )
    if token.is_expired:
        raise TokenRefused(
            f"This token expired on {token.expires_at:%Y-%m-%d %H:%M} UTC. "
            "Make a new one on the API-token page."
        )
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > TOUCH_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token


def acting_user(token: ApiToken) -> object:
    """The token's user as the token may act: organiser of the token's tasks at
    most (``scopes.organised_ids``), whatever else the account organises."""
    user = token.user
    limit_organising(user, scopes.organised_ids(token))
    return user


def user_of_request(request: HttpRequest) -> object | None:
    """The user of a request's ``Authorization: Bearer`` token, or None: registered
    with the core's rate limiter so API submissions count per user, not per address."""
    scheme, _, secret = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        return None
    try:
        return acting_user(check(secret=secret.strip()))
    except TokenRefused:
        return None


def add_task(token: ApiToken, task: SharedTask) -> None:
    """An ``organise`` token that created ``task`` (a bundle import) organises it."""
    if token.scope == Scope.ORGANISE:
        token.tasks.add(task)


def revoke(*, user: object, token_id: int) -> bool:
    return ApiToken.revoke(token_id, user_id=user.pk)  # type: ignore[attr-defined]


def revoke_all(*, user: object) -> int:
    """Every token of ``user``'s account: its password changed or was reset."""
    return ApiToken.revoke_all(user_id=user.pk)  # type: ignore[attr-defined]


def revoke_on_password_change(
    sender: type, instance: object, created: bool = False, **_: object
) -> None:
    """post_save of the user model: a password set and saved (``set_password``:
    a change, a reset by mail, the admin's form, ``changepassword``) revokes every
    token of the account. A hash upgraded at login is saved without it."""
    if not created and getattr(instance, "_password", None) is not None:
        revoke_all(user=instance)
