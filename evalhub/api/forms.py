"""The form of the API-token page: a name, a scope (``scopes.py``), the tasks of an
organising token and an optional expiry."""

from __future__ import annotations

from datetime import timedelta

from django import forms
from django.utils import timezone

from evalhub.api.models import Scope
from evalhub.competitions.models import SharedTask

#: Expiry choices of a new token, in days ("": never).
EXPIRY_DAYS = [("", "never"), ("7", "in 7 days"), ("30", "in 30 days"),
               ("90", "in 90 days"), ("365", "in a year")]  # fmt: skip


class TokenForm(forms.Form):
    name = forms.CharField(
        max_length=100, help_text="Where you will use it, e.g. “laptop” or “CI”."
    )
    scope = forms.ChoiceField(
        choices=Scope.choices,
        initial=Scope.SUBMIT,
        widget=forms.RadioSelect,
        help_text="What the token may do; see “What each scope allows” below.",
    )
    tasks = forms.ModelMultipleChoiceField(
        queryset=SharedTask.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label="Tasks it organises",
        help_text="For the “Organise chosen tasks” scope only: tasks you organise.",
    )
    expires = forms.ChoiceField(choices=EXPIRY_DAYS, required=False, label="Expires")

    def __init__(self, *args: object, user: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        tasks = self.fields["tasks"]
        tasks.queryset = user.organised_tasks.order_by("slug")  # type: ignore[attr-defined]
        tasks.label_from_instance = lambda t: f"{t.title} ({t.slug})"  # type: ignore[attr-defined]

    def clean(self) -> dict[str, object]:
        data = super().clean()
        if data.get("scope") == Scope.ORGANISE and not data.get("tasks"):
            self.add_error("tasks", "Choose the tasks an organising token organises.")
        if data.get("scope") != Scope.ORGANISE:
            data["tasks"] = []
        days = data.get("expires")
        data["expires_at"] = (
            timezone.now() + timedelta(days=int(days)) if days else None
        )
        return data
