"""Which of a task's teams an organisers' message goes to: its approved teams, or
those a *recipient filter* selects ("no final run yet", "no paper link", "not
accepted the new terms", ...).

The registry of filters lives here, in the core, so that every feature app can add
the filters its own rows answer without knowing who asks (feature apps never import
one another): the core registers its own below, the factsheets app its own from its
``AppConfig.ready()``, and an app keeping the task's terms of use its own the same
way. Whoever writes to teams (the mailings app's console pages) lists
``filters()`` and asks ``select``. A filter only narrows: whatever it answers, a
message reaches approved teams only.

Each filter is the one rule of what it says ("no final run yet" is
``_no_final_run`` and nothing else): the participation app's roster offers the same
filters and asks ``pick`` among every team registered (approved or awaiting
approval), so its page and the teams a message reaches never disagree
(``tests/mailings/test_one_rule.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.db.models import Exists, OuterRef, QuerySet

from evalhub.competitions.models import Registration, SharedTask, Submission, Team


@dataclass(frozen=True, slots=True)
class TeamFilter:
    """``key``: stable, stored with each message (lowercase, hyphens); ``label``:
    what the organiser reads ("No final run yet"); ``teams(task, among)``:
    the teams of ``among`` (a queryset of teams registered for the task: the
    approved ones for a message, every one not rejected for the roster) the
    filter selects, as a queryset or an iterable of primary keys; it must not
    write."""

    key: str
    label: str
    teams: Callable[[SharedTask, QuerySet[Team]], Iterable[int] | QuerySet[Team]]


_filters: dict[str, TeamFilter] = {}

#: Every approved team: the filter that selects them all.
ALL = "all"


def register(team_filter: TeamFilter) -> None:
    """Install a filter (from ``AppConfig.ready()``); registering a key again
    replaces its filter (an app's ``ready`` may run twice in tests)."""
    _filters[team_filter.key] = team_filter


def filters() -> list[TeamFilter]:
    """Every filter, all teams first, then in the order they were registered."""
    return sorted(_filters.values(), key=lambda f: f.key != ALL)


def get(key: str) -> TeamFilter | None:
    return _filters.get(key)


def approved_teams(task: SharedTask) -> QuerySet[Team]:
    """The teams whose registration for ``task`` is approved (baseline teams have
    no registration)."""
    return Team.objects.filter(
        registrations__task=task, registrations__status=Registration.Status.APPROVED
    ).distinct()


def pick(*, task: SharedTask, key: str, among: QuerySet[Team]) -> QuerySet[Team]:
    """The teams of ``among`` (teams registered for ``task``) the filter ``key``
    selects: the one rule of each filter, for messages (``select``) and the
    roster. An unknown key selects none."""
    team_filter = _filters.get(key)
    if team_filter is None:
        return among.none()
    chosen = team_filter.teams(task, among)
    if not isinstance(chosen, QuerySet):
        chosen = list(chosen)
    return among.filter(pk__in=chosen)


def select(*, task: SharedTask, key: str, team_id: int | None = None) -> list[Team]:
    """The approved teams of ``task`` the filter ``key`` selects, by name; with
    ``team_id``, that one team if it is among them. An unknown key selects none."""
    teams = pick(task=task, key=key, among=approved_teams(task))
    if team_id is not None:
        teams = teams.filter(pk=team_id)
    return list(teams.order_by("name"))


# --- the core's own filters ------------------------------------------------------
def _all(task: SharedTask, among: QuerySet[Team]) -> QuerySet[Team]:
    return among


def _no_final_run(task: SharedTask, among: QuerySet[Team]) -> QuerySet[Team]:
    """No run of the team is chosen as final in any official phase of the task
    (the evaluation after the campaign has no final runs)."""
    finals = Submission.objects.filter(
        team=OuterRef("pk"),
        phase__task=task,
        phase__after_campaign=False,
        final_selected=True,
    )
    return among.filter(~Exists(finals))


def _no_run(task: SharedTask, among: QuerySet[Team]) -> QuerySet[Team]:
    runs = Submission.objects.filter(team=OuterRef("pk"), phase__task=task).exclude(
        status=Submission.Status.REJECTED
    )
    return among.filter(~Exists(runs))


register(TeamFilter(ALL, "All approved teams", _all))
register(TeamFilter("no-final-run", "No final run yet", _no_final_run))
register(TeamFilter("no-run", "No run yet", _no_run))
