"""Uploading runs: a team's run and an organiser's baseline run."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from evalhub.competitions import upload_limits
from evalhub.competitions.forms import SubmitForm
from evalhub.competitions.models import Phase
from evalhub.competitions.services import roles
from evalhub.competitions.services.boards import systems
from evalhub.competitions.services.data import tracks
from evalhub.competitions.services.runs import submit
from evalhub.competitions.views.lookups import task_or_404


@login_required
def run_submit(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    task = task_or_404(request, slug)
    phase_obj = get_object_or_404(Phase, task=task, slug=phase)
    team = submit.approved_team(phase=phase_obj, user=request.user)
    phase_tracks = tracks.phase_tracks(phase_obj)
    form = SubmitForm(request.POST or None, request.FILES or None, tracks=phase_tracks)
    problems: tuple = ()
    total_problems = 0
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["run"]
        try:
            sub = submit.submit_run(
                phase=phase_obj,
                user=request.user,
                filename=upload.name,
                data=upload.read(),
                method_name=form.cleaned_data["method_name"],
                method_description=form.cleaned_data["method_description"],
                hidden=form.cleaned_data["hide"],
                track=form.cleaned_data.get("track"),
            )
        except submit.SubmissionRefused as exc:
            form.add_error(None, str(exc))
        except submit.SubmissionInvalid as exc:
            problems, total_problems = exc.problems, exc.total
        else:
            repeat = submit.repeat_notice(submission=sub)
            if repeat:
                messages.warning(request, repeat)
            if request.htmx:
                response = HttpResponse(status=204)
                response["HX-Redirect"] = sub.get_absolute_url()
                return response
            return redirect(sub)
    allowance = submit.allowance(phase=phase_obj, team=team) if team else None
    track_allowances = (
        [
            (t, submit.allowance(phase=phase_obj, team=team, track=t))
            for t in phase_tracks
        ]
        if team and phase_obj.limits_per_track
        else []
    )
    status = 422 if problems or form.errors else 200
    return render(
        request,
        "competitions/run_submit.html",
        {
            "task": task,
            "phase": phase_obj,
            "team": team,
            "form": form,
            "problems": problems,
            "total_problems": total_problems,
            "allowance": None if track_allowances else allowance,
            "track_allowances": track_allowances,
            "format_help": task.type.format_help,
            "paused": submit.pause_notice(task),
            "upload_note": upload_limits.upload_note(task.type),
            "panels": systems.panels(phase_obj, request.user) if team else [],
        },
        status=status,
    )


@login_required
def baseline_create(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    """An organiser uploads a baseline run; it is scored like any run."""
    task = task_or_404(request, slug)
    if not roles.is_organiser(request.user, task):
        raise Http404("No such page.")
    phase_obj = get_object_or_404(Phase, task=task, slug=phase)
    form = SubmitForm(
        request.POST or None,
        request.FILES or None,
        tracks=tracks.phase_tracks(phase_obj),
    )
    problems: tuple = ()
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["run"]
        try:
            sub = submit.submit_baseline(
                phase=phase_obj,
                user=request.user,
                filename=upload.name,
                data=upload.read(),
                method_name=form.cleaned_data["method_name"],
                method_description=form.cleaned_data["method_description"],
                track=form.cleaned_data.get("track"),
            )
        except submit.SubmissionRefused as exc:
            form.add_error(None, str(exc))
        except submit.SubmissionInvalid as exc:
            problems = exc.problems
        else:
            messages.success(
                request, f"Baseline run {sub.pk} is {sub.get_status_display().lower()}."
            )
            return redirect(sub)
    context = {"task": task, "phase": phase_obj, "form": form, "problems": problems}
    status = 422 if problems or form.errors else 200
    return render(request, "competitions/baseline_create.html", context, status=status)
