"""How allauth treats user names here: as Django's own forms do.

Django's ``UsernameField`` NFKC-normalises a name before it is stored or
authenticated, so a fullwidth ``ｏrganiser`` is ``organiser``; allauth's forms take the
name as typed. The adapter normalises at sign-up (a name cannot be registered twice
in two spellings) and at login (the name the login rate limit counts,
``competitions.ratelimit.normalised_username``, is the one authenticated). A login
may also be a verified address (``addresses.verified_owner``). After sign-up it tells
the new user what to do next; after the address is verified it leads them where they
were going (or the home page). An address another account has verified is never
refused on a form (that would tell it is registered): its owner is mailed instead.

Account mails name the site and link to it by its public address (``SITE_URL``,
``competitions/public_url.py``), as the mails workers send do: never by the host the
request came through ("Hello from 127.0.0.1:8161!")."""

from __future__ import annotations

import unicodedata

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core import context as allauth_context
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest
from django.shortcuts import resolve_url

from evalhub.accounts import addresses
from evalhub.competitions import public_url

#: The hint shown once an account is created.
NEXT_STEP = (
    "Welcome! Next: open a task's page and register a team there (a new one or one "
    "you are in); then download its data and submit a run. My runs, on each task's "
    "pages, lists your runs with their scores and ranks."
)


#: After following the verification link, signed in.
VERIFIED_NEXT = (
    "Your e-mail address is verified: you can log in with it, and password resets "
    "are sent to it. Next: open a task and register a team to take part."
)
#: After following the link in another browser (not signed in).
VERIFIED_LOG_IN = (
    "Your e-mail address is verified. Next: log in with your user name or this address."
)
#: Session key: where a new user was going when signing up (``next``).
GOING_TO = "evalhub_signup_next"


def nfkc(name: str) -> str:
    return unicodedata.normalize("NFKC", name)


class PublicSite:
    """What allauth's mail templates read of "the current site"."""

    name = public_url.SITE_NAME

    @property
    def domain(self) -> str:
        return public_url.domain()


def _public_links(context: dict, request: HttpRequest | None) -> dict:
    """``context`` with every link allauth built from the request's host (the
    verification, reset and sign-up links) moved to the public address."""
    if request is None:
        return context
    origin = f"{request.scheme}://{request.get_host()}"
    return {
        key: public_url.absolute(value[len(origin) :] or "/")
        if isinstance(value, str) and value.startswith(origin + "/")
        else value
        for key, value in context.items()
    }


class AccountAdapter(DefaultAccountAdapter):
    def clean_username(self, username: str, shallow: bool = False) -> str:
        return super().clean_username(nfkc(username), shallow=shallow)

    def authenticate(self, request: HttpRequest, **credentials: str):  # noqa: ANN201
        # A login that looks like an address: the account that verified it, else
        # the name as typed (allauth tries it as a name too).
        email = credentials.pop("email", None)
        owner = addresses.verified_owner(email) if email else None
        if owner is not None:
            credentials["username"] = owner.get_username()  # type: ignore[attr-defined]
        if "username" in credentials:
            credentials["username"] = nfkc(credentials["username"])
        return super().authenticate(request, **credentials)

    def send_confirmation_mail(
        self, request: HttpRequest, emailconfirmation, signup: bool
    ) -> None:  # noqa: ANN001, FBT001
        """An address another account has verified gets allauth's "you already have
        an account" mail instead of a link that could not verify it: the form that
        claimed it answered as for any address."""
        address = emailconfirmation.email_address
        if addresses.verified_elsewhere(address):
            self.send_account_already_exists_mail(address.email)
            return
        super().send_confirmation_mail(request, emailconfirmation, signup)

    def get_email_verification_redirect_url(self, email_address) -> str:  # noqa: ANN001
        """After following a verification link: where the user was going when
        signing up (``next``), else the home page, with what to do next."""
        request = self.request
        if not request.user.is_authenticated:
            messages.success(request, VERIFIED_LOG_IN)
            return super().get_email_verification_redirect_url(email_address)
        messages.success(request, VERIFIED_NEXT)
        going = request.session.pop(GOING_TO, "")
        if going and self.is_safe_url(going):
            return going
        return resolve_url(settings.LOGIN_REDIRECT_URL)

    def send_mail(self, template_prefix: str, email: str, context: dict) -> None:
        request = allauth_context.request
        context = {
            "current_site": PublicSite(),
            **_public_links(context, request),
        }
        super().send_mail(template_prefix, email, context)

    def save_user(self, request: HttpRequest, user, form, commit: bool = True):  # noqa: ANN001, ANN201, FBT001, FBT002
        saved = super().save_user(request, user, form, commit=commit)
        messages.info(request, NEXT_STEP)
        going = request.POST.get("next") or request.GET.get("next")
        if going and self.is_safe_url(going):
            request.session[GOING_TO] = going
        return saved
