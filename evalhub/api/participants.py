"""The organisers' roster of a task through the REST API (``evalhub participants``):
teams, members and their verified addresses, terms accepted, runs and papers, as
the app that keeps rosters lists them (``competitions/services/rosters``). A token
of one of the task's organisers with the ``organise`` scope for the task is
required (401 without a valid token, 403 otherwise, 404 for a task the token's user
may not see)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from ninja import Router, Schema
from ninja.errors import HttpError

from evalhub.api import scopes
from evalhub.api.auth import TokenAuth
from evalhub.api.organiser import organised_task
from evalhub.competitions.services import rosters

router = Router(auth=TokenAuth(scopes.ORGANISE), tags=["organisers"])


class FilterOut(Schema):
    key: str
    label: str


class RosterOut(Schema):
    task: str
    #: The filter applied ("" for every team) and the search text.
    filter: str
    search: str
    filters: list[FilterOut]
    #: One row per registered team: its members (user name, verified addresses,
    #: affiliation, country, the terms version each accepted), runs, final runs,
    #: fact-sheet states and paper links.
    teams: list[dict[str, object]]


def _asked(call, **kwargs):  # noqa: ANN001, ANN003, ANN202
    try:
        return call(**kwargs)
    except rosters.NoRoster:
        raise Http404("This site keeps no rosters.") from None
    except rosters.UnknownFilter as exc:
        raise HttpError(422, str(exc)) from None


@router.get("/tasks/{slug}/participants", response=RosterOut, url_name="roster")
def roster(
    request: HttpRequest, slug: str, filter: str = "", search: str = ""
) -> dict[str, object]:
    """The task's teams, narrowed by ``filter`` (one of ``filters``' keys) and
    ``search`` (a team, member, address or affiliation containing the text)."""
    task = organised_task(request, slug)
    teams = _asked(
        rosters.rows, task=task, viewer=request.auth, filter=filter, search=search
    )
    return {
        "task": task.slug,
        "filter": filter,
        "search": search,
        "filters": [{"key": k, "label": v} for k, v in _asked(rosters.filters)],
        "teams": teams,
    }


@router.get("/tasks/{slug}/participants.csv", url_name="roster-csv")
def roster_csv(
    request: HttpRequest, slug: str, filter: str = "", search: str = ""
) -> HttpResponse:
    """The same teams as CSV, one row per member (formula prefixes neutralised)."""
    task = organised_task(request, slug)
    text = _asked(
        rosters.csv, task=task, viewer=request.auth, filter=filter, search=search
    )
    response = HttpResponse(text, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="{task.slug}-participants.csv"'
    )
    response["Cache-Control"] = "private, no-store"
    return response
