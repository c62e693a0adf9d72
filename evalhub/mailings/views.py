"""The console's pages of messages to teams: the list, writing one (with a
preview of its recipients), one message with its recipients and how far the
worker got. The task's organisers only (404 for everyone else)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from evalhub.competitions.views.lookups import organised_task_or_404
from evalhub.mailings.forms import MessageForm
from evalhub.mailings.models import Message
from evalhub.mailings.services import compose, sending


@login_required
def message_list(request: HttpRequest, slug: str) -> HttpResponse:
    task = organised_task_or_404(request, slug)
    sent = [
        (m, sending.progress(message=m))
        for m in Message.objects.filter(task=task).select_related("author")
    ]
    return render(request, "mailings/message_list.html", {"task": task, "sent": sent})


@login_required
def message_create(request: HttpRequest, slug: str) -> HttpResponse:
    task = organised_task_or_404(request, slug)
    form = MessageForm(request.POST or None, task=task)
    preview = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        if "send" not in request.POST:
            preview = compose.preview(
                task=task, body=data["body"], key=data["audience"], team=data["team"]
            )
        else:
            try:
                message = compose.post(
                    task=task,
                    author=request.user,
                    subject=data["subject"],
                    body=data["body"],
                    key=data["audience"],
                    team=data["team"],
                    announce=data["announce"],
                )
            except compose.NoRecipients as exc:
                form.add_error("audience", str(exc))
            else:
                messages.success(request, _sending_notice(message))
                return redirect("console:message-detail", slug=task.slug, pk=message.pk)
    context = {"task": task, "form": form, "preview": preview}
    status = 422 if form.errors else 200
    return render(request, "mailings/message_form.html", context, status=status)


def _sending_notice(message: Message) -> str:
    people = f"{message.recipients} member{'s' if message.recipients != 1 else ''}"
    teams = f"{message.teams_count} team{'s' if message.teams_count != 1 else ''}"
    posted = " It is on the task page too." if message.announced else ""
    return f"A worker is mailing the message to {people} of {teams}.{posted}"


@login_required
def message_detail(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    task = organised_task_or_404(request, slug)
    message = get_object_or_404(Message, task=task, pk=pk)
    return render(request, "mailings/message_detail.html", _context(task, message))


@login_required
def message_progress(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """How far the worker got, and each recipient's state (htmx polls it while
    deliveries are pending)."""
    task = organised_task_or_404(request, slug)
    message = get_object_or_404(Message, task=task, pk=pk)
    return render(request, "mailings/message_progress.html", _context(task, message))


def _context(task: object, message: Message) -> dict[str, object]:
    return {
        "task": task,
        "message": message,
        "progress": sending.progress(message=message),
        "deliveries": message.deliveries.select_related("user"),
    }
