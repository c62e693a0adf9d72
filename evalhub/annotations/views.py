"""Annotation pages (organisers and annotators of the task; everyone else gets 404)
and the organisers' probe-set builder and annotator list.
Each view: authentication, form, one service call, render."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from evalhub.annotations.forms import AnnotatorAddForm, ProbeBuildForm, ProbeSaveForm
from evalhub.annotations.services import (
    access,
    annotators,
    judging,
    page,
    probe_sets,
)
from evalhub.competitions.models import SharedTask, TestSet
from tasks.base import FormatError


def _test_set_or_404(request: HttpRequest, pk: int) -> TestSet:
    test_set = get_object_or_404(
        TestSet.objects.select_related("phase__task"),
        pk=pk,
        phase__task__task_type="mt_lexicon_probe",
    )
    if not access.can_annotate(request.user, test_set.phase.task):
        raise Http404("No such page.")
    return test_set


def _page_url(test_set: TestSet, probe_id: str | None, filters: page.Filters) -> str:
    query = filters.query()
    if probe_id:
        query["probe"] = probe_id
    url = reverse("annotations:annotation-detail", args=[test_set.pk])
    return f"{url}?{urlencode(query)}" if query else url


def annotation_list(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        raise Http404("No such page.")
    test_sets = page.annotatable_test_sets(user=request.user)
    managed = page.managed_tasks(user=request.user)
    if not test_sets and not managed:
        raise Http404("No such page.")
    context = {"test_sets": test_sets, "managed": managed}
    return render(request, "annotations/annotation_list.html", context)


def annotation_detail(request: HttpRequest, pk: int) -> HttpResponse:
    test_set = _test_set_or_404(request, pk)
    filters = page.Filters.parse(request.GET)
    context = page.annotation_page(
        test_set=test_set,
        user=request.user,
        probe_id=request.GET.get("probe"),
        filters=filters,
        advance=request.GET.get("advance") == "1",
    )
    template = (
        "annotations/annotation_panel.html"
        if request.htmx and request.htmx.target == "annotation-panel"
        else "annotations/annotation_detail.html"
    )
    return render(request, template, context)


def annotation_scores(request: HttpRequest, pk: int) -> HttpResponse:
    test_set = _test_set_or_404(request, pk)
    return render(
        request,
        "annotations/annotation_scores.html",
        page.scores(test_set=test_set, user=request.user),
    )


def _answer(
    request: HttpRequest,
    test_set: TestSet,
    probe_id: str | None,
    filters: page.Filters,
    *,
    advance: bool = False,
) -> HttpResponse:
    if not request.htmx and not advance:
        return redirect(_page_url(test_set, probe_id, filters))
    context = page.annotation_page(
        test_set=test_set,
        user=request.user,
        probe_id=probe_id,
        filters=filters,
        advance=advance,
    )
    group = context["group"]
    # The address names the probe shown next, with htmx or without.
    url = _page_url(test_set, group.probe.id if group else None, filters)
    if not request.htmx:
        return redirect(url)
    response = render(request, "annotations/annotation_panel.html", context)
    response["HX-Push-Url"] = url
    response["HX-Trigger"] = "judged"
    return response


@require_POST
def judgement_create(request: HttpRequest, pk: int) -> HttpResponse:
    test_set = _test_set_or_404(request, pk)
    filters = page.Filters.parse(request.POST)
    probe_id = request.POST.get("probe", "")
    try:
        judging.record(
            test_set=test_set,
            user=request.user,
            probe_id=probe_id,
            translation_key=request.POST.get("key", ""),
            tag=request.POST.get("tag", ""),
        )
    except judging.InvalidJudgement as exc:
        if request.htmx:
            return HttpResponse(str(exc), status=400)
        messages.error(request, str(exc))
        return _answer(request, test_set, probe_id, filters)
    return _answer(request, test_set, probe_id, filters, advance=True)


@require_POST
def judgement_undo(request: HttpRequest, pk: int) -> HttpResponse:
    test_set = _test_set_or_404(request, pk)
    filters = page.Filters.parse(request.POST)
    undone = judging.undo(test_set=test_set, user=request.user)
    if undone is None:
        messages.info(request, "Nothing to undo.")
        return _answer(request, test_set, request.POST.get("probe"), filters)
    messages.success(
        request, f"Undone: {undone.tag} for “{undone.translation}” ({undone.probe_id})."
    )
    return _answer(request, test_set, undone.probe_id, filters)


def _managed_task_or_404(request: HttpRequest, slug: str) -> SharedTask:
    task = get_object_or_404(SharedTask, slug=slug)
    if not access.can_manage(request.user, task):
        raise Http404("No such page.")
    return task


def _probe_set_page(
    request: HttpRequest,
    task: SharedTask,
    form: ProbeBuildForm,
    *,
    preview: probe_sets.Preview | None = None,
    save_form: ProbeSaveForm | None = None,
    problems: list[str] | None = None,
    status: int = 200,
) -> HttpResponse:
    targets = probe_sets.targets(task=task)
    if preview is not None and save_form is None:
        save_form = ProbeSaveForm(initial={"token": preview.token}, targets=targets)
    context = {
        "task": task,
        "form": form,
        "preview": preview,
        "save_form": save_form,
        "problems": problems or [],
    }
    return render(request, "annotations/probe_set_build.html", context, status=status)


def probe_set_build(request: HttpRequest, slug: str) -> HttpResponse:
    task = _managed_task_or_404(request, slug)
    if request.method != "POST":
        form = ProbeBuildForm(initial=probe_sets.initial(task=task))
        return _probe_set_page(request, task, form)
    form = ProbeBuildForm(request.POST, request.FILES)
    if not form.is_valid():
        return _probe_set_page(request, task, form, status=422)
    try:
        preview = probe_sets.build(
            task=task,
            params=form.params(),
            lists=form.word_lists(),
            reuse=form.cleaned_data["lists"],
        )
    except FormatError as exc:
        problems = [str(p) for p in exc.problems]
        if exc.more:
            problems.append(f"… and {exc.more} more problem(s)")
        return _probe_set_page(request, task, form, problems=problems, status=422)
    except probe_sets.BuildError as exc:
        return _probe_set_page(request, task, form, problems=[str(exc)], status=422)
    form = ProbeBuildForm(
        {**request.POST.dict(), "lists": preview.lists_token}, request.FILES
    )
    return _probe_set_page(request, task, form, preview=preview)


@require_POST
def probe_set_save(request: HttpRequest, slug: str) -> HttpResponse:
    task = _managed_task_or_404(request, slug)
    form = ProbeSaveForm(request.POST, targets=probe_sets.targets(task=task))
    if form.is_valid():
        try:
            test_set = probe_sets.save(
                task=task,
                token=form.cleaned_data["token"],
                target=form.cleaned_data["target"],
                name=form.cleaned_data["name"],
            )
        except (probe_sets.BuildError, probe_sets.DraftExpired) as exc:
            messages.error(request, f"Not saved: {exc}.")
        else:
            messages.success(
                request,
                f"Saved the probe set into {test_set.phase.name} · {test_set.name}: "
                "probe sentences as its input, reference translations as its gold.",
            )
    else:
        messages.error(request, "Not saved: choose where to save the probe set.")
    return redirect("annotations:probe-set-build", task.slug)


def annotator_list(request: HttpRequest, slug: str) -> HttpResponse:
    task = _managed_task_or_404(request, slug)
    form = AnnotatorAddForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            row = annotators.add(
                task=task, username=form.cleaned_data["username"], by=request.user
            )
        except annotators.AnnotatorError as exc:
            form.add_error("username", str(exc))
        else:
            messages.success(request, f"{row.user.get_username()} can annotate now.")
            return redirect("annotations:annotator-list", task.slug)
    context = {
        "task": task,
        "form": form,
        "annotators": annotators.list_annotators(task=task),
    }
    status = 422 if form.errors else 200
    return render(request, "annotations/annotator_list.html", context, status=status)


@require_POST
def annotator_remove(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    task = _managed_task_or_404(request, slug)
    username = annotators.remove(task=task, annotator_id=pk)
    if username:
        messages.success(request, f"{username} is no longer an annotator.")
    return redirect("annotations:annotator-list", task.slug)
