"""How allauth treats user names here: as Django's own forms do.

Django's ``UsernameField`` NFKC-normalises a name before it is stored or
authenticated, so a fullwidth ``ｏrganiser`` is ``organiser``; allauth's forms take the
name as typed. The adapter normalises at sign-up (a name cannot be registered twice
in two spellings) and at login (the name the login rate limit counts,
``competitions.ratelimit.normalised_username``, is the one authenticated). After
sign-up it tells the new user what to do next.

Account mails name the site and link to it by its public address (``SITE_URL``,
``competitions/public_url.py``), as the mails workers send do: never by the host the
request came through ("Hello from 127.0.0.1:8161!")."""

from __future__ import annotations

import unicodedata

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core import context as allauth_context
from django.contrib import messages
from django.http import HttpRequest

from evalhub.competitions import public_url

#: The hint shown once an account is created.
NEXT_STEP = (
    "Welcome! Next: open a task's page and register a team there (a new one or one "
    "you are in); then download its data and submit a run. My runs, on each task's "
    "pages, lists your runs with their scores and ranks."
)


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
        if "username" in credentials:
            credentials["username"] = nfkc(credentials["username"])
        return super().authenticate(request, **credentials)

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
        return saved
