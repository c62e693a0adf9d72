"""Annotation pages (organisers of the task only; everyone else gets 404).
Each view: authentication, form, one service call, render."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from evalhub.annotations.services import judging, page
from evalhub.competitions.models import TestSet
from evalhub.competitions.services import access


def _test_set_or_404(request: HttpRequest, pk: int) -> TestSet:
    test_set = get_object_or_404(
        TestSet.objects.select_related("phase__task"),
        pk=pk,
        phase__task__task_type="mt_lexicon_probe",
    )
    if not access.is_organiser(request.user, test_set.phase.task):
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
    if not test_sets:
        raise Http404("No such page.")
    return render(request, "annotations/annotation_list.html", {"test_sets": test_sets})


def annotation_detail(request: HttpRequest, pk: int) -> HttpResponse:
    test_set = _test_set_or_404(request, pk)
    filters = page.Filters.parse(request.GET)
    context = page.annotation_page(
        test_set=test_set,
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
        page.scores(test_set=test_set),
    )


def _answer(
    request: HttpRequest,
    test_set: TestSet,
    probe_id: str | None,
    filters: page.Filters,
    *,
    advance: bool = False,
) -> HttpResponse:
    if request.htmx:
        context = page.annotation_page(
            test_set=test_set, probe_id=probe_id, filters=filters, advance=advance
        )
        group = context["group"]
        response = render(request, "annotations/annotation_panel.html", context)
        response["HX-Push-Url"] = _page_url(
            test_set,
            group.probe.id if group else None,
            filters,  # type: ignore[attr-defined]
        )
        response["HX-Trigger"] = "judged"
        return response
    url = _page_url(test_set, probe_id, filters)
    return redirect(f"{url}{'&' if '?' in url else '?'}advance=1" if advance else url)


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
