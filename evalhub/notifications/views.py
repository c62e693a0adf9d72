"""Notification pages. Each view: authentication, one service call, render."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from evalhub.notifications.services import mail, notify


@login_required
def notification_list(request: HttpRequest) -> HttpResponse:
    context = {"notifications": notify.recent(user=request.user)}
    return render(request, "notifications/notification_list.html", context)


def notification_bell(request: HttpRequest) -> HttpResponse:
    """The header bell alone (htmx refreshes it). Signed out meanwhile: htmx gets an
    empty 286 (stop polling; the bell goes away) instead of the login page."""
    if not request.user.is_authenticated:
        if request.htmx:
            return HttpResponse(status=286)
        return redirect_to_login(request.get_full_path())
    return render(request, "notifications/notification_bell.html")


@login_required
@require_POST
def notification_read_all(request: HttpRequest) -> HttpResponse:
    n = notify.mark_all_read(user=request.user)
    messages.success(request, f"{n} notification{'s' if n != 1 else ''} marked read.")
    return redirect("notifications:notification-list")


@login_required
@require_POST
def notification_open(request: HttpRequest, pk: int) -> HttpResponse:
    """Mark one notification read and go to its page."""
    n = notify.open_notification(user=request.user, pk=pk)
    if n is None:
        raise Http404("No such notification.")
    if n.link and url_has_allowed_host_and_scheme(n.link, allowed_hosts=None):
        return redirect(n.link)
    return redirect("notifications:notification-list")


@login_required
def mail_settings(request: HttpRequest) -> HttpResponse:
    """Whether announcements and results releases also come by e-mail."""
    if request.method == "POST":
        wanted = request.POST.get("mail") == "on"
        mail.set_wants_mail(user=request.user, wanted=wanted)
        messages.success(
            request,
            "You will get these e-mails." if wanted else "No more of these e-mails.",
        )
        return redirect("notifications:mail-settings")
    context = {"wants_mail": mail.wants_mail(user=request.user)}
    return render(request, "notifications/mail_settings.html", context)
