"""Fact-sheet pages: the organisers' questions of a task, a team's sheets and the
paper of a method. Each view: authentication, form, one service call, render.
Whoever may not see a page gets 404 (nothing says it exists)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from evalhub.competitions.models import Phase
from evalhub.competitions.services.boards import access
from evalhub.competitions.views.lookups import organised_task_or_404, run_or_404
from evalhub.factsheets.forms import PaperForm, QuestionForm, SheetForm
from evalhub.factsheets.models import Question
from evalhub.factsheets.services import overview, papers, questions, sheets


def _question(request: HttpRequest, slug: str, pk: int) -> Question:
    task = organised_task_or_404(request, slug)
    return get_object_or_404(Question, task=task, pk=pk)


def _errors_to(form: object, errors: dict[str, str]) -> None:
    for name, message in errors.items():
        form.add_error(name if name in form.fields else None, message)  # type: ignore[attr-defined]


@login_required
def question_list(request: HttpRequest, slug: str) -> HttpResponse:
    task = organised_task_or_404(request, slug)
    form = QuestionForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            question = questions.add(task=task, data=form.cleaned_data)
        except questions.QuestionInvalid as exc:
            _errors_to(form, exc.errors)
        else:
            messages.success(request, f"Question {question.label!r} added.")
            return redirect("factsheets:question-list", task.slug)
    return render(
        request,
        "factsheets/question_list.html",
        overview.questions_page(task=task, form=form),
        status=422 if form.errors else 200,
    )


@login_required
def question_edit(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    question = _question(request, slug, pk)
    form = QuestionForm.of(question, request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            questions.update(question=question, data=form.cleaned_data)
        except questions.QuestionInvalid as exc:
            _errors_to(form, exc.errors)
        else:
            messages.success(request, f"Question {question.label!r} saved.")
            return redirect("factsheets:question-list", slug)
    return render(
        request,
        "factsheets/question_edit.html",
        {"task": question.task, "question": question, "form": form},
        status=422 if form.errors else 200,
    )


@login_required
@require_POST
def question_delete(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    question = _question(request, slug, pk)
    questions.delete(question=question)
    messages.success(request, f"Question {question.label!r} and its answers deleted.")
    return redirect("factsheets:question-list", slug)


@login_required
@require_POST
def question_move(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    question = _question(request, slug, pk)
    questions.move(question=question, by=-1 if request.POST.get("to") == "up" else 1)
    return redirect("factsheets:question-list", slug)


@login_required
def team_sheets(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    """The team's methods in the phase and their sheets (organisers: every team's)."""
    phase_obj = get_object_or_404(
        Phase.objects.select_related("task"), task__slug=slug, slug=phase
    )
    context = overview.sheets_page(phase=phase_obj, user=request.user)
    if context is None:
        raise Http404("No such page.")
    return render(request, "factsheets/team_sheets.html", context)


@login_required
def run_sheet(request: HttpRequest, pk: int) -> HttpResponse:
    sub = run_or_404(request, pk)
    if not sheets.can_read(request.user, sub):
        raise Http404("No such page.")
    current = sheets.sheet(submission=sub, user=request.user)
    questions_ = [f.question for f in current.fields]
    form = SheetForm(
        questions_,
        request.POST or None,
        initial={f.question.key: f.value for f in current.fields}
        | dict(current.suggested),
    )
    if request.method == "POST" and form.is_valid():
        try:
            sheets.save(submission=sub, user=request.user, data=form.cleaned_data)
        except sheets.SheetInvalid as exc:
            _errors_to(form, exc.errors)
        except sheets.Refused as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Fact sheet of {sub.method_name!r} saved.")
            return redirect("factsheets:run-sheet", sub.pk)
    return render(
        request,
        "factsheets/run_sheet.html",
        {"run": sub, "task": sub.phase.task, "sheet": current, "form": form},
        status=422 if form.errors else 200,
    )


@login_required
def run_paper(request: HttpRequest, pk: int) -> HttpResponse:
    sub = run_or_404(request, pk)
    if not access.can_manage_run(request.user, sub):
        raise Http404("No such page.")
    paper = papers.paper_of(sub)
    initial = (
        {"title": paper.title, "url": paper.url, "doi": paper.doi} if paper else {}
    )
    form = PaperForm(request.POST or None, initial=initial)
    refusal = papers.refusal(request.user, sub)
    if request.method == "POST" and request.POST.get("remove") == "1":
        try:
            papers.remove(submission=sub, user=request.user)
        except papers.Refused as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, "The paper link is removed.")
        return redirect(sub)
    if request.method == "POST" and form.is_valid():
        try:
            papers.attach(submission=sub, user=request.user, **form.cleaned_data)
        except papers.PaperInvalid as exc:
            _errors_to(form, exc.errors)
        except papers.Refused as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, "The paper is attached.")
            return redirect(sub)
    return render(
        request,
        "factsheets/run_paper.html",
        {"run": sub, "task": sub.phase.task, "form": form, "paper": paper,
         "refusal": refusal},
        status=422 if form.errors else 200,
    )  # fmt: skip
