"""The evaluation after the campaign, from the console: open the finished task
for evaluation, change its closing date and limits, close it
(``competitions.services.after_campaign`` does it all)."""

from __future__ import annotations

from datetime import timedelta

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from evalhub.competitions.services import after_campaign
from evalhub.console.forms_after import AfterCampaignForm
from evalhub.console.views.access import organised_task


@login_required
def after_campaign_page(request: HttpRequest, slug: str) -> HttpResponse:
    task = organised_task(request, slug)
    state = after_campaign.current(task=task)
    # A year from now unless it is open (then: its own closing date).
    initial: dict[str, object] = {
        "closes_at": timezone.now().replace(second=0, microsecond=0)
        + timedelta(days=365)
    }
    if state.phase is not None:
        initial["daily_limit"] = state.phase.daily_limit
        initial["total_limit"] = state.phase.total_limit
    if state.is_open:
        initial["closes_at"] = state.phase.closes_at  # type: ignore[union-attr]
    form = AfterCampaignForm(request.POST or None, initial=initial)
    status = 200
    if request.method == "POST" and state.refused is not None:
        status = 409  # the page says why and when it becomes possible
    elif request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        # Opening creates the phase and its copies; once it exists, only its
        # dates and limits change.
        save = (
            after_campaign.open_for_evaluation
            if state.phase is None
            else after_campaign.change
        )
        try:
            phase = save(
                task=task,
                closes_at=data["closes_at"],
                daily_limit=data["daily_limit"],
                total_limit=data["total_limit"],
            )
        except after_campaign.Refused as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(
                request,
                f"The task is open for evaluation after the campaign until "
                f"{phase.closes_at:%Y-%m-%d %H:%M} UTC.",
            )
            return redirect("console:after-campaign", slug=task.slug)
    if form.errors:
        status = 422
    context = {"task": task, "state": state, "form": form}
    return render(request, "console/after_campaign.html", context, status=status)


@login_required
@require_POST
def after_campaign_close(request: HttpRequest, slug: str) -> HttpResponse:
    task = organised_task(request, slug)
    try:
        after_campaign.close(task=task)
    except after_campaign.Refused as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request, "The evaluation after the campaign is closed: no new run is "
            "accepted. Its board stays as it is.",
        )  # fmt: skip
    return redirect("console:after-campaign", slug=task.slug)
