"""Who an e-mail address belongs to: the account that verified it, and only that one.

An address typed at sign-up or as a change of address is a *claim* until its link is
followed. Claims never block anyone: the owner of an address can always sign up with
it (settings: ``ACCOUNT_PREVENT_ENUMERATION = "strict"``), no form says whether an
address has an account, and once the owner verifies it every other account's claim of
it is withdrawn (``withdraw_other_claims``, on allauth's ``email_confirmed``). Logins
by address accept verified addresses only (``verified_owner``), and so does a
sign-in through another site (``social.py``): it reaches the account that verified
the address the site vouches for, never one that only claims it."""

from __future__ import annotations

from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.db import transaction


def verified_owner(email: str) -> object | None:
    """The active account that verified ``email``, or None."""
    row = (
        EmailAddress.objects.filter(email__iexact=email.strip(), verified=True)
        .select_related("user")
        .first()
    )
    return row.user if row is not None and row.user.is_active else None


def verified_by_someone(email: str) -> bool:
    """Some account (active or not) has verified ``email``."""
    return EmailAddress.objects.filter(
        email__iexact=email.strip(), verified=True
    ).exists()


def verified_elsewhere(address: EmailAddress) -> bool:
    """Another account has verified ``address``'s address."""
    return (
        EmailAddress.objects.filter(email__iexact=address.email, verified=True)
        .exclude(user_id=address.user_id)
        .exists()
    )


def withdraw_other_claims(*, email_address: EmailAddress, **_: object) -> None:
    """Receiver of allauth's ``email_confirmed``: the other accounts' unverified
    claims of the address are removed, and an account whose address field still
    names it falls back to its own primary verified address (or none)."""
    if not email_address.verified:
        return
    with transaction.atomic():
        claims = EmailAddress.objects.filter(
            email__iexact=email_address.email, verified=False
        ).exclude(user_id=email_address.user_id)
        claims.delete()
        users = (
            get_user_model()
            .objects.filter(email__iexact=email_address.email)
            .exclude(pk=email_address.user_id)
        )
        for user in users:
            own = EmailAddress.objects.filter(user=user, verified=True).order_by(
                "-primary"
            )
            user.email = own.values_list("email", flat=True).first() or ""
            user.save(update_fields=["email"])
