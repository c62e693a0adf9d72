"""A task's data terms: the organisers write them (Markdown, each change a new
version) and name a licence; a participant accepts the version in force before
getting any of the task's files or submitting (``refusal``, asked by the core
through ``signals.participation_check`` on every path: browser, REST API, CLI)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import Count
from django.urls import reverse

from evalhub.competitions import markdown
from evalhub.competitions.models import Registration, SharedTask, Team
from evalhub.competitions.services import gates
from evalhub.participation.models import Acceptance, DataSettings, TermsVersion

CUSTOM = "custom"
#: An SPDX licence identifier (``CC-BY-4.0``, ``ODC-By-1.0``, ``LicenseRef-x``).
_SPDX = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+-]{0,63}")
#: Licences most shared-task data is given under (suggested on the form).
COMMON_LICENCES = (
    "CC-BY-4.0",
    "CC-BY-SA-4.0",
    "CC-BY-NC-4.0",
    "CC-BY-NC-SA-4.0",
    "CC0-1.0",
    "ODC-By-1.0",
    "MIT",
    "Apache-2.0",
    CUSTOM,
)


class TermsInvalid(ValueError):
    """``errors``: field name -> plain-text problem."""

    def __init__(self, errors: dict[str, str]):
        self.errors = errors
        super().__init__("; ".join(errors.values()))


def current(task: SharedTask) -> TermsVersion | None:
    """The version in force: the newest, if it has text (else the task has none)."""
    newest = task.terms_versions.order_by("-number").first()
    return newest if newest is not None and newest.text.strip() else None


def settings_of(task: SharedTask) -> DataSettings:
    """The task's data settings (unsaved defaults until the organisers save)."""
    return DataSettings.objects.filter(task=task).first() or DataSettings(task=task)


def licence_url(licence: str) -> str:
    """Where an SPDX licence is described ("" for ``custom`` or none)."""
    if not licence or licence == CUSTOM or licence.startswith("LicenseRef-"):
        return ""
    return f"https://spdx.org/licenses/{licence}.html"


def check_licence(licence: str) -> str:
    licence = licence.strip()
    if licence.lower() == CUSTOM:
        return CUSTOM
    if licence and not _SPDX.fullmatch(licence):
        raise TermsInvalid(
            {
                "licence": "Name an SPDX licence identifier (such as CC-BY-4.0) or "
                "“custom” (the terms say what it is)."
            }
        )
    return licence


def save(
    *, task: SharedTask, text: str, licence: str, require_profile: bool, user: object
) -> TermsVersion | None:
    """Store the task's licence, profile rule and terms; changed terms become a new
    version (everyone accepts again). Returns the new version, or None when the
    terms did not change. Raises ``TermsInvalid``."""
    licence = check_licence(licence)
    text = text.replace("\r\n", "\n").strip()
    try:
        markdown.check(text, what="The terms")
    except markdown.MarkdownRefused as exc:
        raise TermsInvalid({"text": str(exc)}) from None
    if licence == CUSTOM and not text:
        raise TermsInvalid({"text": "A custom licence needs terms that say it."})
    with transaction.atomic():
        DataSettings.objects.update_or_create(
            task=task,
            defaults={"licence": licence, "require_profile": require_profile},
        )
        newest = (
            TermsVersion.objects.select_for_update()
            .filter(task=task)
            .order_by("-number")
            .first()
        )
        if (newest.text if newest else "") == text:
            return None
        return TermsVersion.objects.create(
            task=task,
            number=(newest.number + 1) if newest else 1,
            text=text,
            created_by=user,
        )


def versions(task: SharedTask) -> list[tuple[TermsVersion, int]]:
    """Every version, newest first, with how many accepted it."""
    found = task.terms_versions.annotate(accepted=Count("acceptances"))
    return [(v, v.accepted) for v in found.order_by("-number")]


def page_url(task: SharedTask) -> str:
    return reverse("participation:terms", args=[task.slug])


def team_of(*, task: SharedTask, user: object) -> Team | None:
    """The user's team registered for the task (approved or not), if any."""
    reg = (
        Registration.objects.filter(task=task, team__members=user)
        .exclude(status=Registration.Status.REJECTED)
        .select_related("team")
        .first()
    )
    return reg.team if reg else None


def accepted(*, task: SharedTask, user: object) -> Acceptance | None:
    """The user's acceptance of the version in force (None: not accepted, or no
    terms; see ``current``)."""
    version = current(task)
    if version is None or not getattr(user, "is_authenticated", False):
        return None
    return Acceptance.objects.filter(version=version, user=user).first()


def missing(task: SharedTask, user_ids: list[int]) -> set[int]:
    """The accounts of ``user_ids`` that have not accepted the version in force
    (none when the task has no terms): the one rule of "not accepted the current
    terms", for the roster's column and filter and the messages' recipients."""
    version = current(task)
    if version is None:
        return set()
    done = set(
        Acceptance.objects.filter(version=version, user_id__in=user_ids).values_list(
            "user_id", flat=True
        )
    )
    return set(user_ids) - done


def teams_missing(task: SharedTask, teams) -> list[int]:  # noqa: ANN001
    """The teams of ``teams`` (a queryset) with a member who has not accepted the
    version in force (``missing``)."""
    members = list(
        Team.members.through.objects.filter(team__in=teams).values_list(
            "team_id", "user_id"
        )
    )
    behind = missing(task, [user_id for _, user_id in members])
    return sorted({team_id for team_id, user_id in members if user_id in behind})


def accept(*, task: SharedTask, user: object, number: int) -> Acceptance:
    """Record that ``user`` accepts version ``number`` (the one they read). Raises
    ``TermsInvalid`` when it is no longer the version in force."""
    version = current(task)
    if version is None or version.number != number:
        raise TermsInvalid(
            {"version": "The terms changed while you read them: read them again."}
        )
    try:
        with transaction.atomic():
            found, _ = Acceptance.objects.get_or_create(
                version=version,
                user=user,
                defaults={"team": team_of(task=task, user=user)},
            )
    except IntegrityError:  # accepted twice at once: the first is kept
        found = Acceptance.objects.get(version=version, user=user)
    return found


def refusal(*, task: SharedTask, user: object, action: str) -> gates.Refusal | None:
    """Why ``user`` may not get the task's files or submit yet: terms in force not
    accepted (registering needs no acceptance)."""
    if action not in (gates.DOWNLOAD, gates.SUBMIT) or current(task) is None:
        return None
    if not getattr(user, "is_authenticated", False):
        return gates.Refusal(
            f"The data of {task.title} is given under terms: sign in and accept "
            "them before you download any file.",
            page_url(task),
        )
    if accepted(task=task, user=user) is not None:
        return None
    return gates.Refusal(
        f"Accept the current data terms of {task.title} before you "
        f"{'download its files' if action == gates.DOWNLOAD else 'submit a run'}.",
        page_url(task),
    )


@dataclass(frozen=True, slots=True)
class State:
    """What the task page and the terms page show a viewer."""

    version: TermsVersion | None
    licence: str
    licence_url: str
    accepted_at: datetime | None
    url: str


def state(*, task: SharedTask, viewer: object) -> State:
    acceptance = accepted(task=task, user=viewer)
    licence = settings_of(task).licence
    return State(
        version=current(task),
        licence=licence,
        licence_url=licence_url(licence),
        accepted_at=acceptance.accepted_at if acceptance else None,
        url=page_url(task),
    )
