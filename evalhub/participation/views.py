"""The data terms (a participant reads and accepts them), the profile, and the
console's pages of the organisers: the terms and licence, and the Participants
roster with its CSV. Each view: authentication, form, one service call, render.
Organiser pages answer 404 to everyone else."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme

from evalhub.competitions import markdown
from evalhub.competitions.views.lookups import organised_task_or_404, task_or_404
from evalhub.participation.forms import (
    AcceptForm,
    ProfileForm,
    RosterFilterForm,
    TermsForm,
)
from evalhub.participation.services import profiles, roster, terms


def _next(request: HttpRequest, default: str) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return default


def terms_page(request: HttpRequest, slug: str) -> HttpResponse:
    """A task's data terms in force; a signed-in user accepts them here."""
    task = task_or_404(request, slug)
    state = terms.state(task=task, viewer=request.user)
    form = AcceptForm(
        request.POST or None,
        initial={"version": state.version.number if state.version else 0},
    )
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if form.is_valid():
            try:
                terms.accept(
                    task=task,
                    user=request.user,
                    number=form.cleaned_data["version"],
                )
            except terms.TermsInvalid as exc:
                form.add_error(None, str(exc))
            else:
                messages.success(
                    request, f"You accepted the data terms of {task.title}."
                )
                return redirect(_next(request, task.get_absolute_url()))
    context = {
        "task": task,
        "state": state,
        "html": markdown.render(state.version.text) if state.version else "",
        "form": form,
        "next": _next(request, ""),
    }
    status = 422 if form.errors else 200
    return render(request, "participation/terms.html", context, status=status)


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    """The participant's affiliation and country (shown to the organisers of the
    tasks their teams register for)."""
    current = profiles.of(request.user)
    form = ProfileForm(
        request.POST or None,
        initial={"affiliation": current.affiliation, "country": current.country},
    )
    if request.method == "POST" and form.is_valid():
        profiles.save(user=request.user, **form.cleaned_data)
        messages.success(request, "Your profile is saved.")
        return redirect(_next(request, request.path))
    return render(
        request,
        "participation/profile.html",
        {"form": form, "next": _next(request, "")},
    )


@login_required
def data_terms(request: HttpRequest, slug: str) -> HttpResponse:
    """The console's page of a task's data terms and licence."""
    task = organised_task_or_404(request, slug)
    current = terms.current(task)
    saved = terms.settings_of(task)
    form = TermsForm(
        request.POST or None,
        initial={
            "licence": saved.licence,
            "text": current.text if current else "",
            "require_profile": saved.require_profile,
        },
    )
    if request.method == "POST" and form.is_valid():
        try:
            version = terms.save(task=task, user=request.user, **form.cleaned_data)
        except terms.TermsInvalid as exc:
            for name, message in exc.errors.items():
                form.add_error(name if name in form.fields else None, message)
        else:
            messages.success(
                request,
                f"Terms version {version.number} is in force: participants accept "
                "it before their next download or run."
                if version and version.text
                else "Saved.",
            )
            return redirect("console:data-terms", task.slug)
    context = {
        "task": task,
        "form": form,
        "current": current,
        "versions": terms.versions(task),
        "licence_url": terms.licence_url(saved.licence),
    }
    status = 422 if form.errors else 200
    return render(request, "participation/data_terms.html", context, status=status)


def _roster(request: HttpRequest, slug: str):  # noqa: ANN202
    task = organised_task_or_404(request, slug)
    form = RosterFilterForm(request.GET or None)
    key, search = "", ""
    if form.is_valid():
        key, search = form.cleaned_data["filter"], form.cleaned_data["q"]
    rows = roster.select(task=task, viewer=request.user, filter=key, search=search)
    return task, form, key, search, rows


@login_required
def participants(request: HttpRequest, slug: str) -> HttpResponse:
    """The console's roster: every team, its members and where it stands."""
    task, form, key, search, rows = _roster(request, slug)
    context = {
        "task": task,
        "form": form,
        "rows": rows,
        "filter": key,
        "search": search,
        "query": request.GET.urlencode(),
        "current": terms.current(task),
    }
    return render(request, "participation/participants.html", context)


@login_required
def participants_export(request: HttpRequest, slug: str) -> HttpResponse:
    """The roster as it is filtered, as CSV (one line per member)."""
    task, _form, _key, _search, rows = _roster(request, slug)
    response = HttpResponse(
        roster.csv_text(rows), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = (
        f'attachment; filename="{task.slug}-participants.csv"'
    )
    response["Cache-Control"] = "private, no-store"
    return response
