"""The roster of a task, for its organisers: every team registered (approved or
awaiting approval), its members with their verified addresses, affiliation,
country and the terms version each accepted, its runs, final runs, fact-sheet
state and paper (the last two as feature apps say them, through the core's
``run_states`` and ``system_columns``).

``select(task=, viewer=, filter=, search=)`` lists the teams a filter picks: the
console's Participants page, its CSV, the organiser API and ``evalhub
participants`` call it. What a team did or owes ("no final run yet", "no paper
link", "not accepted the current terms", ...) is not decided here: those filters
are the recipient filters of the organisers' messages
(``competitions/services/recipients.py``), asked among the roster's teams, so the
roster and a message to the same filter pick the same approved teams. The roster
adds only who registered: every team, or those awaiting approval. ``viewer`` must
be an organiser of the task (the callers check)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from allauth.account.models import EmailAddress
from django.db.models import Count

from evalhub.competitions.models import Registration, SharedTask, Submission, Team
from evalhub.competitions.services import orcid, recipients
from evalhub.competitions.services.boards import own_rows, systems, tables
from evalhub.participation.models import Acceptance, Profile
from evalhub.participation.services import terms

#: The roster's own filters (who registered, not what a team did): every team
#: (approved or awaiting approval), and those awaiting approval.
EVERY = ""
PENDING = "pending"
COMPLETE = "complete"


class UnknownFilter(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Member:
    user_id: int
    username: str
    emails: tuple[str, ...]  #: verified addresses only
    affiliation: str
    country: str
    orcid: str  #: the ORCID iD the member linked by signing in with ORCID, or ""
    accepted: int | None  #: the newest terms version accepted (None: none)
    accepted_at: datetime | None
    accepted_current: bool  #: True also when the task has no terms


@dataclass(frozen=True, slots=True)
class TeamRow:
    team_id: int
    name: str
    status: str
    registered_at: datetime
    members: tuple[Member, ...]
    runs: int
    finals: tuple[tuple[int, str], ...]  #: (run id, method name)
    factsheet: str  #: "complete", what is missing, or "" (no fact sheet)
    factsheet_url: str
    paper: str
    paper_url: str
    terms_ok: bool = field(default=True)


def filters() -> list[tuple[str, str]]:
    """``(key, label)`` of every filter: every team, the recipient filters (but
    "all approved teams": the roster lists the awaiting ones too), then those
    awaiting approval."""
    return [
        (EVERY, "Every team"),
        *((f.key, f.label) for f in recipients.filters() if f.key != recipients.ALL),
        (PENDING, "Awaiting approval"),
    ]


def check_filter(key: str) -> str:
    keys = [k for k, _label in filters()]
    if key not in keys:
        known = ", ".join(k for k in keys if k)
        raise UnknownFilter(f"No filter {key!r}; the filters are: {known}.")
    return key


def _members(task: SharedTask, users) -> dict[int, Member]:  # noqa: ANN001
    ids = [u.pk for u in users]
    emails: dict[int, list[str]] = defaultdict(list)
    for user_id, address in EmailAddress.objects.filter(
        user_id__in=ids, verified=True
    ).values_list("user_id", "email"):
        emails[user_id].append(address)
    profiles = {p.user_id: p for p in Profile.objects.filter(user_id__in=ids)}
    linked = orcid.orcid_ids(ids)
    newest: dict[int, Acceptance] = {}
    for a in (
        Acceptance.objects.filter(version__task=task, user_id__in=ids)
        .select_related("version")
        .order_by("version__number")
    ):
        newest[a.user_id] = a
    behind = terms.missing(task, ids)
    out = {}
    for u in users:
        profile, a = profiles.get(u.pk), newest.get(u.pk)
        out[u.pk] = Member(
            user_id=u.pk,
            username=u.get_username(),
            emails=tuple(sorted(emails[u.pk])),
            affiliation=profile.affiliation if profile else "",
            country=profile.country if profile else "",
            orcid=linked.get(u.pk, ""),
            accepted=a.version.number if a else None,
            accepted_at=a.accepted_at if a else None,
            accepted_current=u.pk not in behind,
        )
    return out


def _systems(task: SharedTask, viewer: object, runs: list[Submission]):  # noqa: ANN202
    """team id -> (fact-sheet state, its url, paper, its url), per the feature apps,
    for each team's final runs (else its newest run) of each phase."""
    shown: dict[int, list[Submission]] = defaultdict(list)
    by_team: dict[int, list[Submission]] = defaultdict(list)
    for run in runs:
        by_team[run.team_id].append(run)
    for team_id, own in by_team.items():
        finals = [r for r in own if r.final_selected]
        if finals:
            shown[team_id] = finals
        else:  # the newest run of each phase
            newest: dict[int, Submission] = {}
            for r in own:
                newest[r.phase_id] = r
            shown[team_id] = list(newest.values())
    out: dict[int, list[str]] = {t: ["", "", "", ""] for t in shown}
    for phase in task.phases.all():
        picked = [r for rs in shown.values() for r in rs if r.phase_id == phase.pk]
        if not picked:
            continue
        _heading, states = own_rows.run_states(phase, viewer, picked)
        papers = [c for c in systems.system_columns(phase, viewer) if c.key == "paper"]
        for run in picked:
            row = out[run.team_id]
            text, url = states.get(run.pk, ("", ""))
            if text and row[0] in ("", COMPLETE):
                row[0], row[1] = text, url
            for column in papers:
                key = (run.team_id, run.method_name)
                if column.values.get(key) and not row[2]:
                    row[2], row[3] = column.values[key], column.urls.get(key, "")
    return out


def _matches(row: TeamRow, search: str) -> bool:
    words = [row.name]
    for m in row.members:
        words += [m.username, *m.emails, m.affiliation, m.country]
    return any(search in w.casefold() for w in words)


def _picked(task: SharedTask, key: str, registrations: list[Registration]) -> set[int]:
    """The ids of the registered teams the filter ``key`` picks."""
    if key == EVERY:
        return {r.team_id for r in registrations}
    if key == PENDING:
        return {
            r.team_id for r in registrations if r.status == Registration.Status.PENDING
        }
    among = Team.objects.filter(pk__in=[r.team_id for r in registrations])
    return set(
        recipients.pick(task=task, key=key, among=among).values_list("pk", flat=True)
    )


def select(
    *,
    task: SharedTask,
    viewer: object,
    filter: str = "",  # noqa: A002
    search: str = "",
) -> list[TeamRow]:
    """The teams of ``task`` the filter (a key of ``FILTERS``) picks whose name or
    a member's name, verified address, affiliation or country contains ``search``
    (any case), in order of registration. Raises ``UnknownFilter``."""
    check_filter(filter)
    registrations = list(
        Registration.objects.filter(task=task)
        .exclude(status=Registration.Status.REJECTED)
        .select_related("team")
        .prefetch_related("team__members")
        .order_by("created_at", "pk")
    )
    team_ids = [r.team_id for r in registrations]
    runs = list(
        Submission.objects.filter(
            phase__task=task, team_id__in=team_ids, is_baseline=False
        )
        .exclude(status=Submission.Status.REJECTED)
        .order_by("created_at", "pk")
    )
    counts = dict(
        Submission.objects.filter(pk__in=[r.pk for r in runs])
        .values("team_id")
        .annotate(n=Count("pk"))
        .values_list("team_id", "n")
    )
    finals: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for run in runs:
        if run.final_selected:
            finals[run.team_id].append((run.pk, run.method_name))
    users = {u.pk: u for r in registrations for u in r.team.members.all()}
    members = _members(task, list(users.values()))
    said = _systems(task, viewer, runs)
    rows = []
    for reg in registrations:
        own = tuple(
            members[u.pk] for u in sorted(reg.team.members.all(), key=lambda u: u.pk)
        )
        fact, fact_url, paper, paper_url = said.get(reg.team_id, ["", "", "", ""])
        rows.append(
            TeamRow(
                team_id=reg.team_id,
                name=reg.team.name,
                status=reg.status,
                registered_at=reg.created_at,
                members=own,
                runs=counts.get(reg.team_id, 0),
                finals=tuple(finals[reg.team_id]),
                factsheet=fact,
                factsheet_url=fact_url,
                paper=paper,
                paper_url=paper_url,
                terms_ok=all(m.accepted_current for m in own),
            )
        )
    picked = _picked(task, filter, registrations)
    search = search.strip().casefold()
    return [
        row
        for row in rows
        if row.team_id in picked and (not search or _matches(row, search))
    ]


def as_dicts(rows: list[TeamRow]) -> list[dict[str, object]]:
    """The rows as the organiser API gives them (JSON-safe)."""
    return [
        {
            "team": row.name,
            "status": row.status,
            "registered_at": row.registered_at.isoformat(),
            "members": [
                {
                    "username": m.username,
                    "emails": list(m.emails),
                    "affiliation": m.affiliation,
                    "country": m.country,
                    "orcid": m.orcid,
                    "terms_accepted": m.accepted,
                    "terms_accepted_at": m.accepted_at.isoformat()
                    if m.accepted_at
                    else None,
                    "accepted_current_terms": m.accepted_current,
                }
                for m in row.members
            ],
            "runs": row.runs,
            "final_runs": [{"id": pk, "method_name": name} for pk, name in row.finals],
            "factsheet": row.factsheet,
            "paper": row.paper,
            "paper_url": row.paper_url,
            "accepted_current_terms": row.terms_ok,
        }
        for row in rows
    ]


CSV_HEADER = (
    "team",
    "status",
    "registered_at",
    "member",
    "verified_emails",
    "affiliation",
    "country",
    "orcid",
    "terms_accepted",
    "accepted_current_terms",
    "runs",
    "final_runs",
    "factsheet",
    "paper",
    "paper_url",
)


def csv_text(rows: list[TeamRow]) -> str:
    """One line per member (a team without members: one line), every text cell
    neutralised against spreadsheet formulas (``boards/tables``)."""
    lines = []
    for row in rows:
        finals = " ".join(f"{pk}:{name}" for pk, name in row.finals)
        for m in row.members or (None,):
            lines.append(
                (
                    row.name,
                    row.status,
                    row.registered_at.isoformat(),
                    m.username if m else "",
                    "; ".join(m.emails) if m else "",
                    m.affiliation if m else "",
                    m.country if m else "",
                    m.orcid if m else "",
                    "" if m is None or m.accepted is None else m.accepted,
                    "yes" if m and m.accepted_current else "no",
                    row.runs,
                    finals,
                    row.factsheet,
                    row.paper,
                    row.paper_url,
                )
            )
    return tables.csv_text(CSV_HEADER, lines)
