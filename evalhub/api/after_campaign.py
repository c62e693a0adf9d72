"""The organiser API's evaluation after the campaign: ``PUT
/api/tasks/{slug}/after-campaign`` keeps a finished task open for evaluation (or
changes the end and limits of its evaluation after the campaign), by a token of one
of the task's organisers (``services/after_campaign.py`` says what it opens)."""

from __future__ import annotations

from datetime import datetime

from django.http import HttpRequest
from django.urls import reverse
from ninja import Router, Schema, Status

from evalhub.api import scopes
from evalhub.api.auth import TokenAuth
from evalhub.api.organiser import organised_task
from evalhub.api.schemas import ErrorOut
from evalhub.competitions.services import after_campaign

router = Router(auth=TokenAuth(scopes.ORGANISE), tags=["organisers"])


class AfterCampaignIn(Schema):
    closes_at: datetime
    #: Runs per team per UTC day, and in all.
    daily_limit: int = 5
    total_limit: int = 20


class AfterCampaignOut(Schema):
    phase: str
    opens_at: datetime
    closes_at: datetime
    daily_limit: int
    total_limit: int
    #: Its leaderboard ("after the campaign"), apart from the official results.
    leaderboard_url: str


@router.put(
    "/tasks/{slug}/after-campaign",
    response={200: AfterCampaignOut, 409: ErrorOut},
    url_name="after-campaign",
)
def open_after_campaign(
    request: HttpRequest, slug: str, body: AfterCampaignIn
) -> object:
    """Open the task for evaluation after its campaign: a phase of its own with a
    copy of the last phase's test sets, ranked apart from the official results, its
    Ladder (if the last phase has one) continuing each team's history from its
    campaign runs. Called again: changes its closing date and limits. 409 while
    the campaign is still running."""
    task = organised_task(request, slug)
    opened = after_campaign.current(task=task).phase is not None
    save = after_campaign.change if opened else after_campaign.open_for_evaluation
    try:
        phase = save(
            task=task,
            closes_at=body.closes_at,
            daily_limit=body.daily_limit,
            total_limit=body.total_limit,
        )
    except after_campaign.Refused as exc:
        return Status(409, {"detail": str(exc)})
    return {
        "phase": phase.slug,
        "opens_at": phase.opens_at,
        "closes_at": phase.closes_at,
        "daily_limit": phase.daily_limit,
        "total_limit": phase.total_limit,
        "leaderboard_url": reverse(
            "competitions:leaderboard-detail", args=[task.slug, phase.slug]
        ),
    }
