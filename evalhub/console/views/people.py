"""Co-organisers and announcements of a task."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.forms import Form
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from evalhub.competitions.models import SharedTask
from evalhub.console.forms import AnnouncementForm, HandOverForm, OrganiserForm
from evalhub.console.services import people
from evalhub.console.views.access import organised_task


@login_required
def organisers(request: HttpRequest, slug: str) -> HttpResponse:
    task = organised_task(request, slug)
    form = OrganiserForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = people.add_organiser(
                task=task, username=form.cleaned_data["username"]
            )
        except people.Refused as exc:
            form.add_error("username", str(exc))
        else:
            messages.success(request, f"{user.username} now organises this task.")
            return redirect("console:organisers", slug=task.slug)
    return _organisers_page(request, task, form, HandOverForm(task=task))


@login_required
@require_POST
def owner_hand_over(request: HttpRequest, slug: str) -> HttpResponse:
    task = organised_task(request, slug)
    form = HandOverForm(request.POST, task=task)
    if form.is_valid():
        try:
            user = people.hand_over(
                task=task, by=request.user, user_id=form.cleaned_data["new_owner"].pk
            )
        except people.Refused as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, f"{user.username} now owns this task.")
        return redirect("console:organisers", slug=task.slug)
    return _organisers_page(request, task, OrganiserForm(), form)


def _organisers_page(
    request: HttpRequest, task: SharedTask, form: Form, hand_over_form: Form
) -> HttpResponse:
    organisers = task.organisers.order_by("username")
    context = {
        "task": task,
        "form": form,
        "hand_over_form": hand_over_form,
        "organisers": organisers,
        "may_hand_over": len(organisers) > 1
        and people.may_hand_over(task=task, user=request.user),
    }
    status = 422 if form.errors or hand_over_form.errors else 200
    return render(request, "console/organisers.html", context, status=status)


@login_required
@require_POST
def organiser_remove(request: HttpRequest, slug: str, user_id: int) -> HttpResponse:
    task = organised_task(request, slug)
    try:
        people.remove_organiser(task=task, user_id=user_id, by=request.user)
    except people.Refused as exc:
        messages.error(request, str(exc))
        return redirect("console:organisers", slug=task.slug)
    if user_id == request.user.pk:
        messages.success(request, f"You no longer organise {task.title}.")
        return redirect("competitions:task-list")
    messages.success(request, "The organiser is removed.")
    return redirect("console:organisers", slug=task.slug)


@login_required
def announcements(request: HttpRequest, slug: str) -> HttpResponse:
    task = organised_task(request, slug)
    form = AnnouncementForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        people.post_announcement(
            task=task, author=request.user, text=form.cleaned_data["text"]
        )
        messages.success(
            request,
            people.announcement_sent(teams=people.announcement_audience(task=task)),
        )
        return redirect("console:announcements", slug=task.slug)
    context = {
        "task": task,
        "form": form,
        "teams": people.announcement_audience(task=task),
        "announcements": task.announcements.select_related("author"),
    }
    status = 422 if form.errors else 200
    return render(request, "console/announcements.html", context, status=status)
