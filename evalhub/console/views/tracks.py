"""The organisers' tracks page of a phase: add, edit, reorder and delete tracks
(delete only while no run uses one) and choose whether the limits count per track
or for the phase. Organisers of the task only (everyone else: 404; anonymous
visitors are sent to log in). Each view: authentication, form, one service call,
render or redirect."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from evalhub.competitions.models import Phase, Track
from evalhub.competitions.services.data import tracks
from evalhub.console.slugs import slug_from_name
from evalhub.console.views.access import organised_task


class TrackForm(forms.Form):
    name = forms.CharField(max_length=100)
    slug = forms.SlugField(
        max_length=50,
        required=False,
        help_text="Letters, digits, '-' and '_': the address, API and CLI name "
        "(evalhub submit --track SLUG). Fixed once a run uses the track. Left "
        "empty: made from the name.",
    )
    description = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Plain text, e.g. 'closed: only the provided training data'.",
    )

    def clean_slug(self) -> str:
        slug = slug_from_name(self.cleaned_data["slug"], self.data.get("name"))
        if not slug:
            raise forms.ValidationError("Give the track a name or a slug.")
        return slug


def _phase(request: HttpRequest, slug: str, phase: str) -> Phase:
    """The phase, if the user organises its task (404 otherwise)."""
    task = organised_task(request, slug)
    return get_object_or_404(
        Phase.objects.select_related("task"), task=task, slug=phase
    )


def _track(phase: Phase, track: str) -> Track:
    return get_object_or_404(Track, phase=phase, slug=track)


def _back(phase: Phase) -> HttpResponse:
    return redirect("console:track-list", slug=phase.task.slug, phase=phase.slug)


@login_required
def track_list(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    """The phase's tracks and a form to add one (POST)."""
    phase_obj = _phase(request, slug, phase)
    form = TrackForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            track = tracks.save_track(phase=phase_obj, **form.cleaned_data)
        except tracks.TrackError as exc:
            form.add_error("slug", str(exc))
        else:
            messages.success(request, f"Added the track {track.name}.")
            return _back(phase_obj)
    counts = tracks.run_counts(phase_obj)
    context = {
        "task": phase_obj.task,
        "phase": phase_obj,
        "rows": [(t, counts.get(t.pk, 0)) for t in tracks.phase_tracks(phase_obj)],
        "form": form,
        "untracked": phase_obj.submissions.filter(track__isnull=True).count(),
    }
    status = 422 if form.errors else 200
    return render(request, "console/tracks.html", context, status=status)


@login_required
def track_edit(request: HttpRequest, slug: str, phase: str, track: str) -> HttpResponse:
    phase_obj = _phase(request, slug, phase)
    track_obj = _track(phase_obj, track)
    initial = {
        "slug": track_obj.slug,
        "name": track_obj.name,
        "description": track_obj.description,
    }
    form = TrackForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            tracks.save_track(phase=phase_obj, track=track_obj, **form.cleaned_data)
        except tracks.TrackError as exc:
            form.add_error("slug", str(exc))
        else:
            messages.success(request, f"Saved the track {track_obj.name}.")
            return _back(phase_obj)
    context = {"task": phase_obj.task, "phase": phase_obj, "track": track_obj}
    context["form"] = form
    status = 422 if form.errors else 200
    return render(request, "console/tracks_edit.html", context, status=status)


@login_required
@require_POST
def track_move(request: HttpRequest, slug: str, phase: str, track: str) -> HttpResponse:
    phase_obj = _phase(request, slug, phase)
    tracks.move_track(
        track=_track(phase_obj, track), up=request.POST.get("direction") == "up"
    )
    return _back(phase_obj)


@login_required
@require_POST
def track_delete(
    request: HttpRequest, slug: str, phase: str, track: str
) -> HttpResponse:
    phase_obj = _phase(request, slug, phase)
    track_obj = _track(phase_obj, track)
    try:
        tracks.delete_track(track=track_obj)
    except tracks.TrackError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Deleted the track {track_obj.name}.")
    return _back(phase_obj)


@login_required
@require_POST
def track_limits(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    phase_obj = _phase(request, slug, phase)
    per_track = request.POST.get("limits_per_track") == "on"
    tracks.set_limits_per_track(phase=phase_obj, per_track=per_track)
    messages.success(
        request,
        "The limits now count each track apart."
        if per_track
        else "The limits are now shared by all tracks of the phase.",
    )
    return _back(phase_obj)
