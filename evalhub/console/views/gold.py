"""Uploading a test set's files in two steps: check and preview (a draft), then
confirm (stored; replacing gold rescores) or discard."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from evalhub.competitions.services import test_data
from evalhub.competitions.services.data import drafts
from evalhub.console.forms_gold import FilesForm
from evalhub.console.views.testsets import organised_test_set


@login_required
def testset_files(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    test_set = organised_test_set(request, slug, pk)
    form = FilesForm(request.POST or None, request.FILES or None, test_set=test_set)
    problems: list = []
    more = 0
    if request.method == "POST" and form.is_valid():
        try:
            draft = test_data.stage(
                test_set=test_set, user=request.user, uploads=form.uploads()
            )
        except test_data.UploadRejected as exc:
            problems, more = exc.problems, exc.total - len(exc.problems)
        else:
            return redirect("console:gold-draft", slug, test_set.pk, draft.token)
    status = 422 if problems or form.errors else 200
    context = {
        "task": test_set.phase.task,
        "test_set": test_set,
        "form": form,
        "problems": problems,
        "more": more,
    }
    return render(request, "console/testset_files.html", context, status=status)


@login_required
def gold_draft(request: HttpRequest, slug: str, pk: int, token: str) -> HttpResponse:
    test_set = organised_test_set(request, slug, pk)
    try:
        if request.method == "POST":
            stored = test_data.confirm(
                test_set=test_set, user=request.user, token=token
            )
            text = f"Stored {stored.files} file{'s' if stored.files != 1 else ''}."
            if stored.rescored:
                text += f" {stored.rescored} run(s) are being rescored on the new gold."
            messages.success(request, text)
            return redirect("console:testsets", slug)
        draft = drafts.load(
            test_set_id=test_set.pk, user_id=request.user.pk, token=token
        )
    except drafts.DraftGone:
        raise Http404("This upload has expired or was discarded.") from None
    except test_data.DraftStale as exc:
        messages.error(request, str(exc))
        return redirect("console:testset-files", slug, test_set.pk)
    context = {
        "task": test_set.phase.task,
        "test_set": test_set,
        "preview": test_data.preview(test_set=test_set, draft=draft),
    }
    return render(request, "console/gold_draft.html", context)


@login_required
@require_POST
def gold_draft_discard(
    request: HttpRequest, slug: str, pk: int, token: str
) -> HttpResponse:
    test_set = organised_test_set(request, slug, pk)
    try:
        drafts.discard(test_set_id=test_set.pk, user_id=request.user.pk, token=token)
    except drafts.DraftGone:
        raise Http404("This upload has expired or was discarded.") from None
    messages.success(request, "Discarded the upload; nothing was stored.")
    return redirect("console:testset-files", slug, test_set.pk)
