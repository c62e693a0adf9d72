"""The console's test set pages: the list of each phase's test sets with their files
and state, adding and editing a test set, and the explicit actions public/private,
reveal and gold release, each behind a page that says who will see what."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from evalhub.competitions.models import SharedTask, TestSet
from evalhub.console.forms_gold import ReleaseForm, TestSetForm, VisibilityForm
from evalhub.console.services import disclosure, testsets
from evalhub.console.views.access import organised_task


def organised_test_set(request: HttpRequest, slug: str, pk: int) -> TestSet:
    task = organised_task(request, slug)
    test_set = get_object_or_404(
        TestSet.objects.select_related("phase__task"), pk=pk, phase__task=task
    )
    return test_set


@login_required
def testset_list(request: HttpRequest, slug: str) -> HttpResponse:
    task = organised_task(request, slug)
    context = {
        "task": task,
        "phases": testsets.overview(task=task),
        "release": disclosure.release_effect(task=task),
    }
    return render(request, "console/testset_list.html", context)


@login_required
def testset_create(request: HttpRequest, slug: str) -> HttpResponse:
    task = organised_task(request, slug)
    if not task.phases.exists():
        messages.error(request, "Add a phase first: a test set belongs to a phase.")
        return redirect("console:testsets", task.slug)
    form = TestSetForm(request.POST or None, task=task)
    if request.method == "POST" and form.is_valid():
        test_set = form.save()
        messages.success(
            request, f"Added {test_set.name}: now upload its files (below)."
        )
        return redirect("console:testset-files", task.slug, test_set.pk)
    status = 422 if form.errors else 200
    context = {"task": task, "form": form, "test_set": None}
    return render(request, "console/testset_form.html", context, status=status)


@login_required
def testset_edit(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    test_set = organised_test_set(request, slug, pk)
    task = test_set.phase.task
    form = TestSetForm(request.POST or None, instance=test_set, task=task)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, f"Saved {test_set.name}.")
        return redirect("console:testsets", task.slug)
    status = 422 if form.errors else 200
    context = {"task": task, "form": form, "test_set": test_set}
    return render(request, "console/testset_form.html", context, status=status)


def _confirm_page(
    request: HttpRequest,
    task: SharedTask,
    effect: disclosure.Disclosure,
    form: object = None,
    status: int = 200,
) -> HttpResponse:
    context = {"task": task, "effect": effect, "form": form}
    return render(request, "console/gold_disclosure.html", context, status=status)


@login_required
def testset_visibility(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    test_set = organised_test_set(request, slug, pk)
    other = "private" if test_set.visibility == "public" else "public"
    form = VisibilityForm(
        request.POST
        if request.method == "POST"
        else request.GET or {"visibility": other}
    )
    if not form.is_valid():
        raise Http404("No such page.")
    visibility = form.cleaned_data["visibility"]
    if request.method == "POST":
        if disclosure.set_visibility(test_set=test_set, visibility=visibility):
            messages.success(request, f"{test_set.name} is {visibility} now.")
        return redirect("console:testsets", slug)
    effect = disclosure.visibility_change(test_set=test_set, visibility=visibility)
    return _confirm_page(request, test_set.phase.task, effect, form)


@login_required
def testset_reveal(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    test_set = organised_test_set(request, slug, pk)
    if request.method == "POST":
        disclosure.reveal(test_set=test_set)
        messages.success(request, f"The scores of {test_set.name} are revealed.")
        return redirect("console:testsets", slug)
    effect = disclosure.reveal_effect(test_set=test_set)
    return _confirm_page(request, test_set.phase.task, effect)


@login_required
def gold_release(request: HttpRequest, slug: str) -> HttpResponse:
    task = organised_task(request, slug)
    form = ReleaseForm(request.POST if request.method == "POST" else None)
    effect = disclosure.release_effect(task=task)
    if request.method == "POST" and form.is_valid():
        try:
            disclosure.release(
                task=task, confirm_unrevealed=form.cleaned_data["confirm_unrevealed"]
            )
        except disclosure.GoldReleaseRefused as exc:
            messages.error(request, str(exc))
            return _confirm_page(request, task, effect, form, status=409)
        messages.success(request, "The gold is released.")
        return redirect("console:testsets", slug)
    return _confirm_page(request, task, effect, form)
