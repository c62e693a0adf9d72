"""A task's phases: list, add, change (with confirmation when runs are affected)
and reorder."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from evalhub.competitions.models import Phase
from evalhub.console.forms import PhaseForm
from evalhub.console.services import phases
from evalhub.console.views.access import organised_phase, organised_task


@login_required
def phase_list(request: HttpRequest, slug: str) -> HttpResponse:
    task = organised_task(request, slug)
    context = {"task": task, "phases": task.phases.order_by("order", "opens_at")}
    return render(request, "console/phase_list.html", context)


def _phase_form(request: HttpRequest, task, phase: Phase) -> HttpResponse:  # noqa: ANN001
    form = PhaseForm(request.POST or None, instance=phase, task=task)
    warnings: list[str] = []
    if request.method == "POST" and form.is_valid():
        original = Phase.objects.filter(pk=phase.pk).first() or Phase()
        warnings = phases.impact(phase=original, data=form.cleaned_data)
        if not warnings or form.cleaned_data["confirm"]:
            saved = phases.save_phase(task=task, phase=form.save(commit=False))
            messages.success(request, f"Phase {saved.name} is saved.")
            return redirect("console:phases", slug=task.slug)
    context = {"task": task, "form": form, "phase": phase, "warnings": warnings}
    status = 409 if warnings else (422 if form.errors else 200)
    return render(request, "console/phase_form.html", context, status=status)


@login_required
def phase_create(request: HttpRequest, slug: str) -> HttpResponse:
    task = organised_task(request, slug)
    return _phase_form(request, task, Phase(task=task))


@login_required
def phase_edit(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    phase_obj = organised_phase(request, slug, phase)
    return _phase_form(request, phase_obj.task, phase_obj)


@login_required
@require_POST
def phase_move(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    phase_obj = organised_phase(request, slug, phase)
    phases.move_phase(phase=phase_obj, up=request.POST.get("direction") == "up")
    return redirect("console:phases", slug=slug)
