"""API tokens. Only a SHA-256 digest of each token is stored; the token itself is
shown once, when it is created. Each token has a scope (``Scope``, chosen at
creation; the rule is ``evalhub/api/scopes.py``), an optional expiry, and is revoked
with every other token of its account when the account's password changes."""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.db import models
from django.utils import timezone


def digest_of(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Scope(models.TextChoices):
    READ = "read", "Read only"
    SUBMIT = "submit", "Submit runs"
    ORGANISE = "organise", "Organise chosen tasks"


class ApiToken(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100)
    #: The first characters of the token, so users can tell their tokens apart.
    prefix = models.CharField(max_length=16)
    digest = models.CharField(max_length=64, unique=True)
    #: What the token may do (tokens made before scopes existed: ``submit``).
    scope = models.CharField(max_length=10, choices=Scope.choices, default=Scope.SUBMIT)
    #: The tasks an ``organise`` token organises (of those its user organises).
    tasks = models.ManyToManyField(
        "competitions.SharedTask", blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    #: None: never expires.
    expires_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None and not self.is_expired

    @property
    def is_expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()

    @classmethod
    def revoke(cls, pk: int, *, user_id: int) -> bool:
        return (
            cls.objects.filter(pk=pk, user_id=user_id, revoked_at=None).update(
                revoked_at=timezone.now()
            )
            == 1
        )

    @classmethod
    def revoke_all(cls, *, user_id: int) -> int:
        return cls.objects.filter(user_id=user_id, revoked_at=None).update(
            revoked_at=timezone.now()
        )
