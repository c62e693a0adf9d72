"""What the admin shows an organiser (a staff user without model permissions) beyond
the rows of its own tasks: filter sidebars whose choices come only from those rows,
and user fields typed as user names instead of a list of every account."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from django import forms
from django.contrib import admin
from django.contrib.admin.utils import get_fields_from_path
from django.contrib.auth import get_user_model


def scoped_list_filter(model: type, list_filter: Sequence[object]) -> list[object]:
    """``list_filter`` with every filter on a related field replaced by one whose
    choices are the related objects of the rows the admin's queryset returns (Django's
    default lists every object of the related model, e.g. every task's title)."""
    scoped: list[object] = []
    for entry in list_filter:
        if (
            isinstance(entry, str)
            and get_fields_from_path(model, entry)[-1].is_relation
        ):
            scoped.append((entry, admin.RelatedOnlyFieldListFilter))
        else:
            scoped.append(entry)
    return scoped


def organiser_choices(db_field, request, kwargs: dict) -> dict:  # noqa: ANN001
    """``formfield_for_foreignkey`` keyword arguments with the choices of a task,
    phase or test set limited to the tasks the (non-superuser) user organises."""
    from evalhub.competitions.models import Phase, SharedTask, TestSet

    lookup = {
        SharedTask: "organisers",
        Phase: "task__organisers",
        TestSet: "phase__task__organisers",
    }.get(db_field.related_model)
    if lookup and not request.user.is_superuser:
        kwargs["queryset"] = db_field.related_model.objects.filter(
            **{lookup: request.user}
        )
    return kwargs


class ScopedListFilterMixin:
    """For ModelAdmins whose queryset is already what the user may see."""

    def get_list_filter(self, request):  # noqa: ANN001, ANN201
        list_filter = super().get_list_filter(request)  # type: ignore[misc]
        if request.user.is_superuser:
            return list_filter
        return scoped_list_filter(self.model, list_filter)  # type: ignore[attr-defined]


class UsernamesField(forms.CharField):
    """Users named one by one (commas or spaces between names), never chosen from a
    list: the page names only the users already set. An unknown name is an error."""

    def __init__(self, **kwargs: object) -> None:
        kwargs.setdefault(
            "help_text", "User names, separated by commas (each must have an account)."
        )
        super().__init__(**kwargs)  # type: ignore[arg-type]

    def prepare_value(self, value: object) -> object:
        if isinstance(value, str) or value is None:
            return value or ""
        return ", ".join(sorted(_usernames(value)))  # type: ignore[arg-type]

    def clean(self, value: object) -> list[object]:
        text = super().clean(value)
        names = list(dict.fromkeys(n for n in re.split(r"[,\s]+", text) if n))
        users = list(get_user_model().objects.filter(username__in=names))
        unknown = sorted(set(names) - {u.get_username() for u in users})
        if unknown:
            raise forms.ValidationError(
                "No account has the user name: %(names)s.",
                params={"names": ", ".join(unknown)},
            )
        return users

    def has_changed(self, initial: object, data: object) -> bool:
        before = set(_usernames(initial or []))  # type: ignore[arg-type]
        after = {n for n in re.split(r"[,\s]+", str(data or "")) if n}
        return before != after


def _usernames(users: Iterable[object]) -> list[str]:
    User = get_user_model()
    objs = list(users)
    pks = [u for u in objs if not isinstance(u, User)]
    names = [u.get_username() for u in objs if isinstance(u, User)]
    if pks:
        names += list(
            User.objects.filter(pk__in=pks).values_list(User.USERNAME_FIELD, flat=True)
        )
    return names
