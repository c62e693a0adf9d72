"""Pages. Each view: authentication, form, one service call, render."""

from __future__ import annotations

import json
import mimetypes

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from evalhub.competitions.forms import BundleForm, RegisterForm, SubmitForm
from evalhub.competitions.models import (
    Artefact,
    Phase,
    Registration,
    SharedTask,
    Submission,
    TaskArtefact,
    Team,
    TestSet,
    TestSetFile,
)
from evalhub.competitions.services import (
    access,
    bundles,
    compare,
    dashboard,
    finals,
    overall,
    pages,
    rescoring,
    submit,
    teams,
)


def _task_or_404(request: HttpRequest, slug: str) -> SharedTask:
    task = get_object_or_404(SharedTask, slug=slug)
    if not access.can_see_task(request.user, task):
        raise Http404("No such task.")
    return task


def task_list(request: HttpRequest) -> HttpResponse:
    tasks = SharedTask.objects.filter(
        Q(state=SharedTask.State.PUBLISHED)
        | Q(
            pk__in=request.user.organised_tasks.all()
            if request.user.is_authenticated
            else []
        )
    ).distinct()
    return render(request, "competitions/task_list.html", {"tasks": tasks})


def task_detail(request: HttpRequest, slug: str) -> HttpResponse:
    task = _task_or_404(request, slug)
    return render(
        request,
        "competitions/task_detail.html",
        pages.task_page(task=task, user=request.user),
    )


@login_required
def task_register(request: HttpRequest, slug: str) -> HttpResponse:
    task = _task_or_404(request, slug)
    form = RegisterForm(
        request.POST or None, teams=Team.objects.filter(members=request.user)
    )
    if request.method == "POST" and form.is_valid():
        try:
            reg = teams.register(
                task=task,
                user=request.user,
                team=form.cleaned_data["existing_team"],
                new_team_name=form.cleaned_data["new_team"],
            )
        except teams.TeamNameTaken as exc:
            form.add_error("new_team", str(exc))
        else:
            if reg.status == Registration.Status.APPROVED:
                messages.success(
                    request, f"Team {reg.team.name} is registered for {task.title}."
                )
            else:
                messages.info(
                    request, f"Team {reg.team.name} awaits the organisers' approval."
                )
            return redirect(task)
    return render(
        request, "competitions/task_register.html", {"task": task, "form": form}
    )


@login_required
def run_submit(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    task = _task_or_404(request, slug)
    phase_obj = get_object_or_404(Phase, task=task, slug=phase)
    team = submit.approved_team(phase=phase_obj, user=request.user)
    form = SubmitForm(request.POST or None, request.FILES or None)
    problems: tuple = ()
    total_problems = 0
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["run"]
        try:
            if upload.size > submit.django_settings.MAX_UPLOAD_BYTES:
                raise submit.SubmissionRefused(
                    f"{upload.name} is {upload.size:,} bytes; the limit is {submit.django_settings.MAX_UPLOAD_BYTES:,} bytes."
                )
            sub = submit.submit_run(
                phase=phase_obj,
                user=request.user,
                filename=upload.name,
                data=upload.read(),
                method_name=form.cleaned_data["method_name"],
                method_description=form.cleaned_data["method_description"],
                hidden=form.cleaned_data["hide"],
            )
        except submit.SubmissionRefused as exc:
            form.add_error(None, str(exc))
        except submit.SubmissionInvalid as exc:
            problems, total_problems = exc.problems, exc.total
        else:
            if request.htmx:
                response = HttpResponse(status=204)
                response["HX-Redirect"] = sub.get_absolute_url()
                return response
            return redirect(sub)
    allowance = submit.allowance(phase=phase_obj, team=team) if team else None
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
            "allowance": allowance,
            "format_help": task.type.format_help,
        },
        status=status,
    )


def phase_leaderboard(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    try:
        phase_obj, test_sets = pages.leaderboard_phase(slug=slug, phase_slug=phase)
    except Phase.DoesNotExist:
        raise Http404("No such phase.") from None
    if not access.can_see_task(request.user, phase_obj.task):
        raise Http404("No such task.")

    def render_page() -> bytes:
        return render(
            request,
            "competitions/phase_leaderboard.html",
            pages.leaderboard_page(
                phase=phase_obj, test_sets=test_sets, user=request.user
            ),
        ).content

    # Anonymous visitors share one cached page per board version (nothing on it is
    # theirs: no CSRF token, and pages with a message for them are not cached).
    if not request.user.is_authenticated and not len(messages.get_messages(request)):
        return HttpResponse(
            pages.anonymous_leaderboard(
                phase=phase_obj,
                test_sets=test_sets,
                path=request.get_full_path(),
                render=render_page,
            )
        )
    return HttpResponse(render_page())


@login_required
def bundle_import(request: HttpRequest) -> HttpResponse:
    """Create a task from a bundle (staff users become its organisers)."""
    if not request.user.is_staff:
        raise Http404("No such page.")
    form = BundleForm(request.POST or None, request.FILES or None)
    problems: list = []
    if request.method == "POST" and form.is_valid():
        try:
            task = bundles.import_bundle(
                data=form.cleaned_data["bundle"].read(), user=request.user
            )
        except bundles.BundleError as exc:
            problems = exc.problems
        else:
            messages.success(request, f"Created {task.title} from the bundle.")
            return redirect(task)
    status = 422 if problems else 200
    context = {"form": form, "problems": problems}
    return render(request, "competitions/bundle_import.html", context, status=status)


@login_required
def bundle_export(request: HttpRequest, slug: str) -> HttpResponse:
    task = _task_or_404(request, slug)
    if not access.is_organiser(request.user, task):
        raise Http404("No such page.")
    response = HttpResponse(
        bundles.export_bundle(task=task), content_type="application/zip"
    )
    response["Content-Disposition"] = f'attachment; filename="{task.slug}-bundle.zip"'
    return response


@login_required
def task_dashboard(request: HttpRequest, slug: str) -> HttpResponse:
    task = _task_or_404(request, slug)
    if not access.is_organiser(request.user, task):
        raise Http404("No such page.")
    context = {"dash": dashboard.dashboard(task=task)}
    return render(request, "competitions/task_dashboard.html", context)


@login_required
def task_rescoring(request: HttpRequest, slug: str) -> HttpResponse:
    """Organisers: runs scored with older gold or another scorer version, a button
    to rescore them, and old and new scores side by side."""
    task = _task_or_404(request, slug)
    if not access.is_organiser(request.user, task):
        raise Http404("No such page.")
    if request.method == "POST":
        n = rescoring.rescore_stale(task=task)
        messages.success(
            request, f"{n} run{'s' if n != 1 else ''} queued for rescoring."
        )
        return redirect("competitions:task-rescoring", task.slug)
    context = {"task": task, "test_sets": rescoring.comparison(task=task)}
    return render(request, "competitions/task_rescoring.html", context)


@login_required
@require_POST
def registration_decide(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Approve or reject a pending registration from the dashboard (one click)."""
    task = _task_or_404(request, slug)
    reg = get_object_or_404(
        Registration.objects.select_related("team"), pk=pk, task=task
    )
    approve = request.POST.get("decision") == "approve"
    try:
        teams.decide_registration(registration=reg, user=request.user, approve=approve)
    except teams.NotAllowed:
        raise Http404("No such page.") from None
    verb = "approved" if approve else "rejected"
    messages.success(request, f"The registration of team {reg.team.name} is {verb}.")
    return redirect("competitions:task-dashboard", slug=task.slug)


@login_required
def baseline_create(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    """An organiser uploads a baseline run; it is scored like any run."""
    task = _task_or_404(request, slug)
    if not access.is_organiser(request.user, task):
        raise Http404("No such page.")
    phase_obj = get_object_or_404(Phase, task=task, slug=phase)
    form = SubmitForm(request.POST or None, request.FILES or None)
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
            )
        except submit.SubmissionRefused as exc:
            form.add_error(None, str(exc))
        except submit.SubmissionInvalid as exc:
            problems = exc.problems
        else:
            messages.success(request, f"Baseline run {sub.pk} is queued for scoring.")
            return redirect(sub)
    context = {"task": task, "phase": phase_obj, "form": form, "problems": problems}
    status = 422 if problems or form.errors else 200
    return render(request, "competitions/baseline_create.html", context, status=status)


def phase_ranking(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    task = _task_or_404(request, slug)
    phase_obj = get_object_or_404(Phase, task=task, slug=phase)
    context = {
        "task": task,
        "phase": phase_obj,
        "overall": overall.overall(phase=phase_obj, user=request.user),
    }
    return render(request, "competitions/phase_ranking.html", context)


def phase_ranking_plot(
    request: HttpRequest, slug: str, phase: str, ext: str
) -> HttpResponse:
    task = _task_or_404(request, slug)
    phase_obj = get_object_or_404(Phase, task=task, slug=phase)
    if ext not in ("svg", "png"):
        raise Http404("No such plot.")
    data = overall.overall_plot(phase=phase_obj, user=request.user, ext=ext)
    content_type = "image/svg+xml" if ext == "svg" else "image/png"
    response = HttpResponse(data, content_type=content_type)
    response["Cache-Control"] = "private, max-age=60"
    return response


def leaderboard_json(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    task = _task_or_404(request, slug)
    phase_obj = get_object_or_404(Phase, task=task, slug=phase)
    data = pages.leaderboard_export(phase=phase_obj, user=request.user)
    return HttpResponse(
        json.dumps(data, indent=2, default=str), content_type="application/json"
    )


def _run_or_404(request: HttpRequest, pk: int) -> Submission:
    sub = get_object_or_404(
        Submission.objects.select_related("phase__task", "team"), pk=pk
    )
    if not access.can_see_run(request.user, sub):
        raise Http404("No such run.")
    return sub


def run_detail(request: HttpRequest, pk: int) -> HttpResponse:
    sub = _run_or_404(request, pk)
    return render(
        request,
        "competitions/run_detail.html",
        pages.run_page(submission=sub, user=request.user),
    )


def run_status(request: HttpRequest, pk: int) -> HttpResponse:
    """The live part of the run page (polled by htmx while the run is not final)."""
    sub = _run_or_404(request, pk)
    context = pages.run_page(submission=sub, user=request.user)
    response = render(request, "competitions/run_status.html", context)
    if sub.is_final and request.htmx:
        # Stop polling and reload once so scores and plots appear.
        response["HX-Refresh"] = "true"
    return response


def run_file(request: HttpRequest, pk: int) -> HttpResponse:
    sub = _run_or_404(request, pk)
    if not access.can_see_run_private(request.user, sub) or not sub.file:
        raise Http404("No such file.")
    return FileResponse(
        sub.file.open("rb"), as_attachment=True, filename=sub.original_name
    )


def run_item_detail(request: HttpRequest, pk: int, test_set: int) -> HttpResponse:
    sub = _run_or_404(request, pk)
    if not access.can_see_detail(request.user, sub.phase.task):
        raise Http404("No such page.")
    evaluation = get_object_or_404(sub.evaluations.all(), test_set_id=test_set)
    if request.GET.get("format") == "json":
        return HttpResponse(
            json.dumps(evaluation.detail, indent=1, ensure_ascii=False),
            content_type="application/json",
        )
    context = pages.item_detail_page(submission=sub, test_set_id=test_set)
    return render(request, "competitions/run_items.html", context)


def run_plot(request: HttpRequest, pk: int, artefact: int, ext: str) -> HttpResponse:
    sub = _run_or_404(request, pk)
    art = get_object_or_404(
        Artefact.objects.select_related("evaluation__test_set__phase__task"),
        pk=artefact,
        evaluation__submission=sub,
    )
    if not access.can_see_run_scores(request.user, sub, art.evaluation.test_set):
        raise Http404("No such plot.")
    return _serve(art.svg if ext == "svg" else art.png, ext)


def test_set_plot(request: HttpRequest, pk: int, key: str, ext: str) -> HttpResponse:
    art = get_object_or_404(
        TaskArtefact.objects.select_related("test_set__phase__task"),
        test_set_id=pk,
        key=key,
    )
    if not access.can_see_task_artefact(request.user, art):
        raise Http404("No such plot.")
    field = art.svg if ext == "svg" else art.png
    if not field:
        raise Http404("No such plot.")
    return _serve(field, ext)


def test_set_file(request: HttpRequest, pk: int, role: str) -> HttpResponse:
    f = get_object_or_404(
        TestSetFile.objects.select_related("test_set__phase__task"),
        test_set_id=pk,
        role=role,
    )
    task = f.test_set.phase.task
    if not access.can_see_task(request.user, task):
        raise Http404("No such file.")
    if f.private and not (
        access.is_organiser(request.user, task) or task.gold_released
    ):
        raise Http404("No such file.")
    return FileResponse(f.file.open("rb"), as_attachment=True, filename=f.original_name)


def _serve(field, ext: str) -> HttpResponse:  # noqa: ANN001
    if ext not in ("svg", "png"):
        raise Http404("No such plot.")
    content_type = (
        "image/svg+xml"
        if ext == "svg"
        else (mimetypes.guess_type(f"x.{ext}")[0] or "application/octet-stream")
    )
    response = FileResponse(field.open("rb"), content_type=content_type)
    response["Cache-Control"] = "private, max-age=60"
    response["Content-Security-Policy"] = (
        "default-src 'none'; style-src 'unsafe-inline'"
    )
    return response


@login_required
@require_POST
def run_rescore(request: HttpRequest, pk: int) -> HttpResponse:
    sub = _run_or_404(request, pk)
    if not access.is_organiser(request.user, sub.phase.task):
        raise Http404("No such run.")
    from evalhub.competitions.services import scoring

    scoring.rescore(submission_ids=[sub.pk])
    messages.success(request, f"Run {sub.pk} is queued for rescoring.")
    return redirect(sub)


def _back(request: HttpRequest, sub: Submission) -> HttpResponse:
    target = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return redirect(target)
    return redirect(sub)


@login_required
@require_POST
def run_final(request: HttpRequest, pk: int) -> HttpResponse:
    """Choose or un-choose a run as one of the team's final runs."""
    sub = _run_or_404(request, pk)
    if not access.can_manage_run(request.user, sub):
        raise Http404("No such run.")
    final = request.POST.get("final") == "1"
    try:
        finals.set_final(submission=sub, user=request.user, final=final)
    except finals.ChoiceRefused as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request,
            f"Run {sub.pk} is {'now' if final else 'no longer'} one of your final runs.",
        )
    return _back(request, sub)


@login_required
@require_POST
def run_visibility(request: HttpRequest, pk: int) -> HttpResponse:
    """Show a run to everyone or hide it from all but the team and organisers."""
    sub = _run_or_404(request, pk)
    if not access.can_manage_run(request.user, sub):
        raise Http404("No such run.")
    hidden = request.POST.get("hidden") == "1"
    finals.set_hidden(submission=sub, user=request.user, hidden=hidden)
    messages.success(
        request,
        f"Run {sub.pk} is {'hidden: only your team and the organisers see it' if hidden else 'public'}.",
    )
    return _back(request, sub)


def runs_compare(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    """2 to 5 runs of a phase side by side (``?runs=1&runs=2``)."""
    task = _task_or_404(request, slug)
    phase_obj = get_object_or_404(Phase, task=task, slug=phase)
    try:
        context = compare.compare_page(
            phase=phase_obj, run_ids=request.GET.getlist("runs"), user=request.user
        )
    except compare.NotFound:
        raise Http404("No such run.") from None
    status = 400 if context.get("error") else 200
    return render(request, "competitions/runs_compare.html", context, status=status)


__all__ = ["TestSet"]
