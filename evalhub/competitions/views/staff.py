"""Site staff's pages (not the Django admin): who may create tasks."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from evalhub.competitions.error_pages import error_page
from evalhub.competitions.forms import CreatorChangeForm
from evalhub.competitions.services import creators


@login_required
def creator_list(request: HttpRequest) -> HttpResponse:
    """Search users by name or e-mail and grant or withdraw the right to create
    tasks; the users granted it and the record of changes. Site staff only."""
    if not request.user.is_staff:
        raise Http404("No such page.")
    if request.method == "POST":
        form = CreatorChangeForm(request.POST)
        if not form.is_valid():
            return error_page(request, 400)
        user = get_object_or_404(
            get_user_model(), pk=form.cleaned_data["user"], is_active=True
        )
        change = (
            creators.grant
            if form.cleaned_data["action"] == "grant"
            else (creators.withdraw)
        )
        if change(user=user, by=request.user):
            done = "granted to" if change is creators.grant else "withdrawn from"
            messages.success(request, f"The right to create tasks is {done} {user}.")
        else:
            state = "already has" if change is creators.grant else "was not granted"
            messages.info(request, f"{user} {state} the right to create tasks.")
        query = form.cleaned_data["q"]
        url = reverse("competitions:creator-list")
        return redirect(f"{url}?{urlencode({'q': query})}" if query else url)
    page = creators.staff_page(query=request.GET.get("q", "")[:150])
    return render(request, "competitions/creator_list.html", {"page": page})
