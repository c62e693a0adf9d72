"""System-description papers: once a phase has closed, a team attaches the paper
describing one of its methods (a title, and a URL or a DOI). Shown on the
leaderboard (the ``paper`` column, see ``services/columns.py``) and on the method's
run pages, to whoever may see the method's answers."""

from __future__ import annotations

import re

from django.db import transaction
from django.utils import timezone

from evalhub.competitions.models import Submission
from evalhub.competitions.services.boards import access, boardcache
from evalhub.factsheets.models import PaperLink
from evalhub.factsheets.services import kinds
from evalhub.precompiled import Precompiled, fields, instance

TITLE_MAX = 300
_DOI = re.compile(r"10\.\d{4,9}/\S+\Z")
_DOI_PREFIXES = ("https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "doi:")


class Refused(Exception):
    """Not allowed now; the message says why."""


class PaperInvalid(Exception):
    """``errors`` maps the form's field names to messages."""

    def __init__(self, errors: dict[str, str]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))


def refusal(user: object, submission: Submission) -> str:
    """Why ``user`` cannot attach a paper to the run's method now ("" if they can)."""
    if submission.is_baseline or submission.status == Submission.Status.REJECTED:
        return "Only a team's methods (runs not rejected) have papers."
    if not access.can_manage_run(user, submission):
        return "Only the team's members can attach its papers."
    if timezone.now() < submission.phase.closes_at:
        return "Papers can be attached once the phase has closed."
    return ""


def paper_of(submission: Submission) -> PaperLink | None:
    rows = _PAPER.rows(
        phase_id=submission.phase_id,
        team_id=submission.team_id,
        method_name=submission.method_name,
    )
    return instance(PaperLink, rows[0]) if rows else None


# Asked by every run page (precompiled: see evalhub.precompiled); one row at
# most (``paperlink_unique``).
_PAPER = Precompiled(
    lambda phase_id, team_id, method_name: PaperLink.objects.filter(
        phase_id=phase_id, team_id=team_id, method_name=method_name
    ).values_list(*fields(PaperLink)),
    phase_id=-2_000_000_006,
    team_id=-2_000_000_007,
    method_name="\x00method-name",
)


def normalise_doi(raw: str) -> str:
    text = raw.strip()
    for prefix in _DOI_PREFIXES:
        if text.lower().startswith(prefix):
            text = text[len(prefix) :]
            break
    if text and not _DOI.match(text):
        raise kinds.Invalid(
            "A DOI looks like 10.18653/v1/2022.bucc-1.1 (with or without "
            "https://doi.org/)."
        )
    return text


def attach(
    *, submission: Submission, user: object, title: str, url: str = "", doi: str = ""
) -> PaperLink:
    """Attach (or replace) the paper of the run's method."""
    reason = refusal(user, submission)
    if reason:
        raise Refused(reason)
    errors: dict[str, str] = {}
    try:
        title = kinds.plain_line(title, TITLE_MAX, "The title")
    except kinds.Invalid as exc:
        errors["title"] = str(exc)
    if "title" not in errors and not title:
        errors["title"] = "Give the paper's title."
    try:
        url = kinds.parse(kinds.Kind.URL, url)
    except kinds.Invalid as exc:
        errors["url"] = str(exc)
    try:
        doi = normalise_doi(doi)
    except kinds.Invalid as exc:
        errors["doi"] = str(exc)
    if not errors and not url and not doi:
        errors["url"] = "Give the paper's URL or its DOI."
    if errors:
        raise PaperInvalid(errors)
    with transaction.atomic():
        paper, _ = PaperLink.objects.update_or_create(
            phase_id=submission.phase_id,
            team_id=submission.team_id,
            method_name=submission.method_name,
            defaults={"title": title, "url": url, "doi": doi, "added_by": user},
        )
        boardcache.invalidate_phase(phase=submission.phase, refresh_statistics=False)
    return paper


def remove(*, submission: Submission, user: object) -> None:
    reason = refusal(user, submission)
    if reason:
        raise Refused(reason)
    with transaction.atomic():
        deleted, _ = PaperLink.objects.filter(
            phase_id=submission.phase_id,
            team_id=submission.team_id,
            method_name=submission.method_name,
        ).delete()
        if deleted:
            boardcache.invalidate_phase(
                phase=submission.phase, refresh_statistics=False
            )
