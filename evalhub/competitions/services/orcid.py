"""The ORCID iDs people linked to their accounts by signing in with ORCID
(django-allauth's social account of the ``orcid`` provider, whose ``uid`` is the
iD): the one place that reads them, for every page or file that names people with
their iD (the organisers' roster, the overview-paper package's systems table).

Callers decide who may see whom: these functions only answer for the accounts or
teams they are given. An iD is returned only in ORCID's own form
(``0000-0002-1825-0097``), with its public address."""

from __future__ import annotations

import re
from collections.abc import Iterable

from django.apps import apps

from evalhub.competitions.models import Team

PROVIDER = "orcid"
_ID = re.compile(r"^\d{4}-\d{4}-\d{4}-\d{3}[\dX]$")


def url(orcid_id: str) -> str:
    """The iD's public record, the form ORCID asks to show it in."""
    return f"https://orcid.org/{orcid_id}"


def orcid_ids(user_ids: Iterable[int]) -> dict[int, str]:
    """Account id -> the ORCID iD linked to it, for those of ``user_ids`` that have
    one (none while allauth's social accounts are not installed)."""
    wanted = list(user_ids)
    if not wanted or not apps.is_installed("allauth.socialaccount"):
        return {}
    from allauth.socialaccount.models import SocialAccount

    rows = SocialAccount.objects.filter(
        provider=PROVIDER, user_id__in=wanted
    ).values_list("user_id", "uid")
    return {user_id: uid for user_id, uid in sorted(rows) if _ID.match(uid)}


def team_orcid_ids(team_ids: Iterable[int]) -> dict[int, list[str]]:
    """Team id -> its members' ORCID iDs (by user name), for the teams of
    ``team_ids`` whose members linked any."""
    members = list(
        Team.members.through.objects.filter(team_id__in=list(team_ids))
        .order_by("user__username")
        .values_list("team_id", "user_id")
    )
    linked = orcid_ids(user_id for _, user_id in members)
    found: dict[int, list[str]] = {}
    for team_id, user_id in members:
        if user_id in linked:
            found.setdefault(team_id, []).append(linked[user_id])
    return found
