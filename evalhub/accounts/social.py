"""Sign-in through another site (GitHub, ORCID, an institution's OpenID Connect
provider): allauth's social accounts, configured by ``settings_blocks.social_accounts``.

Which account a provider's sign-in reaches, by the address rules of
``addresses.py``:

- the account already linked to that provider's account (allauth);
- else the account that **verified** an address the provider reports as verified
  too; the provider's account is then linked to it, so later sign-ins need no
  address (``authenticate_by_email``). An account that only claims the address
  (typed it, never followed the link) is never reached: allauth's own rule would
  sign in to it and wipe its password;
- else a new account, made without a form. The addresses the provider verified
  are verified for it, and every other account's claim of them is withdrawn, as
  when a link is followed. An address some other account has verified already
  (one inactive, say) stays a claim: an address belongs to one account."""

from __future__ import annotations

import logging

from allauth.account.models import EmailAddress
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from django.contrib import messages
from django.http import HttpRequest

from evalhub.accounts import addresses
from evalhub.accounts.adapter import NEXT_STEP

logger = logging.getLogger(__name__)


class SocialAccountAdapter(DefaultSocialAccountAdapter):
    def on_authentication_error(  # noqa: PLR0913
        self,
        request: HttpRequest,
        provider,  # noqa: ANN001
        error=None,  # noqa: ANN001
        exception=None,  # noqa: ANN001
        extra_context=None,  # noqa: ANN001
    ) -> None:
        """The page says only that the sign-in failed; the log says why (a wrong
        secret, an issuer or callback address the provider does not know), for
        the operator."""
        logger.warning(
            "sign-in with %s failed: %s (%s)",
            getattr(provider, "id", provider),
            error,
            repr(exception) if exception is not None else "no exception",
        )
        super().on_authentication_error(
            request, provider, error, exception, extra_context
        )

    def authenticate_by_email(self, sociallogin):  # noqa: ANN001, ANN201
        """``(account, address)``: the active account that verified an address the
        provider reports as verified, or None."""
        for address in sociallogin.email_addresses:
            if not address.verified:
                continue
            owner = addresses.verified_owner(address.email)
            if owner is not None:
                return owner, address.email
        return None

    def save_user(self, request: HttpRequest, sociallogin, form=None):  # noqa: ANN001, ANN201
        for address in sociallogin.email_addresses:
            if address.verified and addresses.verified_by_someone(address.email):
                address.verified = False
        user = super().save_user(request, sociallogin, form=form)
        for address in EmailAddress.objects.filter(user=user, verified=True):
            addresses.withdraw_other_claims(email_address=address)
        messages.info(request, NEXT_STEP)
        return user

    def list_providers(self, request: HttpRequest):  # noqa: ANN201
        """The configured providers (the login page's buttons)."""
        return [_named(provider) for provider in super().list_providers(request)]

    def get_provider(self, request: HttpRequest, provider, client_id=None):  # noqa: ANN001, ANN201
        return _named(super().get_provider(request, provider, client_id=client_id))


def _named(provider):  # noqa: ANN001, ANN202
    """ORCID by its own name (allauth says "Orcid.org")."""
    if provider.id == "orcid":
        provider.name = "ORCID"
    return provider
