"""Organiser pages (Django admin): create tasks, phases and test sets, upload or replace
inputs and gold (validated by the task type before they are stored), rescore runs,
reveal private test sets, release gold."""

from __future__ import annotations

import hashlib

from django import forms
from django.contrib import admin, messages
from django.db import transaction

from evalhub.competitions.admin_forms import (
    RegistrationForm,
    SharedTaskForm,
    TeamForm,
)
from evalhub.competitions.admin_scoping import (
    ScopedListFilterMixin,
    UsernamesField,
    organiser_choices,
)
from evalhub.competitions.models import (
    Phase,
    Registration,
    SharedTask,
    Submission,
    Team,
    TestSet,
    TestSetFile,
)
from evalhub.competitions.services import roles, teams
from evalhub.competitions.services.data import datasets
from evalhub.competitions.services.runs import lifecycle
from tasks.base import FormatError


class OrganisedQuerysetMixin(ScopedListFilterMixin):
    """Organisers are staff users without model permissions: they may add tasks and
    see and change only what belongs to the tasks they organise (rows, filter choices
    and related-object choices alike)."""

    task_path = "task"

    def _organises(self, request, obj) -> bool:  # noqa: ANN001
        if request.user.is_superuser:
            return True
        if not request.user.is_staff:
            return False
        if obj is None:
            return True
        task = obj
        for part in self.task_path.split("__") if self.task_path else ():
            task = getattr(task, part)
        return roles.is_organiser(request.user, task)

    def has_module_permission(self, request) -> bool:  # noqa: ANN001
        return request.user.is_active and request.user.is_staff

    def has_view_permission(self, request, obj=None) -> bool:  # noqa: ANN001
        return self._organises(request, obj)

    def has_change_permission(self, request, obj=None) -> bool:  # noqa: ANN001
        return self._organises(request, obj)

    def has_delete_permission(self, request, obj=None) -> bool:  # noqa: ANN001
        return self._organises(request, obj)

    def has_add_permission(self, request, obj=None) -> bool:  # noqa: ANN001
        return request.user.is_active and request.user.is_staff

    def get_queryset(self, request):  # noqa: ANN001, ANN201
        qs = super().get_queryset(request)  # type: ignore[misc]
        if request.user.is_superuser:
            return qs
        return (
            qs.filter(**{f"{self.task_path}__organisers": request.user}).distinct()
            if self.task_path
            else qs.filter(organisers=request.user)
        )

    def formfield_for_foreignkey(self, db_field, request, **kwargs):  # noqa: ANN001, ANN003, ANN201
        kwargs = organiser_choices(db_field, request, kwargs)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)  # type: ignore[misc]


class OrganiserInlineMixin:
    def has_view_permission(self, request, obj=None) -> bool:  # noqa: ANN001
        return request.user.is_staff

    has_change_permission = has_add_permission = has_delete_permission = (
        has_view_permission
    )


class PhaseInline(OrganiserInlineMixin, admin.TabularInline):
    model = Phase
    extra = 0


@admin.register(SharedTask)
class SharedTaskAdmin(OrganisedQuerysetMixin, admin.ModelAdmin):
    task_path = ""
    form = SharedTaskForm
    list_display = ["title", "slug", "task_type", "state", "gold_released"]
    prepopulated_fields = {"slug": ["title"]}
    inlines = [PhaseInline]
    # Released only through the actions below (they check the private test sets);
    # the owner changes only by a hand-over on the console's Organisers page.
    readonly_fields = ["gold_released", "owner"]
    actions = ["release_gold", "release_gold_unrevealed"]

    def has_add_permission(self, request, obj=None) -> bool:  # noqa: ANN001
        """Who may create tasks is ``roles.may_create_tasks``'s answer (every staff
        user may; the admin is for staff only)."""
        return super().has_add_permission(request, obj) and roles.may_create_tasks(
            request.user
        )

    def has_delete_permission(self, request, obj=None) -> bool:  # noqa: ANN001
        """A co-organiser deletes no task: only its owner (or a superuser)."""
        if obj is None or request.user.is_superuser:
            return super().has_delete_permission(request, obj)
        return obj.owner_id == request.user.pk

    def formfield_for_dbfield(self, db_field, request, **kwargs):  # noqa: ANN001, ANN003, ANN201
        if db_field.name == "organisers":
            # Typed names: a select box would list every account of the site.
            return UsernamesField(required=False, label="Organisers")
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    def save_related(self, request, form, formsets, change):  # noqa: ANN001, ANN201
        super().save_related(request, form, formsets, change)
        if not change:  # after the form's organisers are set, not before
            form.instance.organisers.add(request.user)
            form.instance.owner = request.user
            form.instance.save(update_fields=["owner"])

    @admin.action(description="Release the gold (per-item outcomes become public)")
    def release_gold(self, request, queryset):  # noqa: ANN001, ANN201
        self._release(request, queryset, confirm_unrevealed=False)

    @admin.action(
        description="Release the gold although private scores are still hidden"
    )
    def release_gold_unrevealed(self, request, queryset):  # noqa: ANN001, ANN201
        self._release(request, queryset, confirm_unrevealed=True)

    def _release(self, request, queryset, *, confirm_unrevealed: bool) -> None:  # noqa: ANN001
        updated = 0
        for task in queryset:
            try:
                updated += datasets.release_gold(
                    task=task, confirm_unrevealed=confirm_unrevealed
                )
            except datasets.GoldReleaseRefused as exc:
                self.message_user(request, f"{task.title}: {exc}", messages.ERROR)
        self.message_user(request, f"Gold released for {updated} task(s).")


class TestSetFileForm(forms.ModelForm):
    upload = forms.FileField(
        required=False, help_text="Upload to add or replace this file"
    )

    class Meta:
        model = TestSetFile
        fields = ["role", "upload"]

    def __init__(self, *args, **kwargs):  # noqa: ANN002, ANN003
        super().__init__(*args, **kwargs)
        self.fields[
            "role"
        ].help_text = "Role key from the task type (e.g. gold, source_terms)"

    def clean(self):  # noqa: ANN201
        data = super().clean()
        upload = data.get("upload")
        if not self.instance.pk and not upload:
            raise forms.ValidationError("Choose a file to upload.")
        test_set = getattr(self.instance, "test_set", None)
        if upload and test_set is not None and test_set.pk and data.get("role"):
            try:
                datasets.check_file(
                    test_set=test_set, role=data["role"], data=upload.read()
                )
            except datasets.UnknownRole as exc:
                raise forms.ValidationError(str(exc)) from None
            except FormatError as exc:
                raise forms.ValidationError(
                    [f"{upload.name}: {p}" for p in exc.problems]
                ) from None
            finally:
                upload.seek(0)
        return data


class TestSetFileInline(OrganiserInlineMixin, admin.TabularInline):
    model = TestSetFile
    form = TestSetFileForm
    extra = 1
    readonly_fields = ["private", "original_name", "sha256", "size", "uploaded_at"]


@admin.register(TestSet)
class TestSetAdmin(OrganisedQuerysetMixin, admin.ModelAdmin):
    task_path = "phase__task"
    list_display = [
        "name",
        "phase",
        "visibility",
        "revealed",
        "counts_for_ranking",
        "gold_version",
    ]
    inlines = [TestSetFileInline]
    actions = ["reveal", "rescore_all"]

    def save_formset(self, request, form, formset, change):  # noqa: ANN001, ANN201
        if formset.model is not TestSetFile:
            return super().save_formset(request, form, formset, change)
        uploads = {}
        for f in formset.forms:
            if (
                f.cleaned_data
                and f.cleaned_data.get("upload")
                and not f.cleaned_data.get("DELETE")
            ):
                uploads[f.cleaned_data["role"]] = f.cleaned_data["upload"]
        for role, upload in uploads.items():
            try:
                _, notes = datasets.store_file(
                    test_set=form.instance,
                    role=role,
                    filename=upload.name,
                    data=upload.read(),
                )
            except (FormatError, datasets.UnknownRole) as exc:
                messages.error(request, f"{upload.name}: {exc}")
            else:
                for note in notes:
                    messages.warning(request, f"{upload.name}: {note}")
        formset.deleted_objects = []
        for f in formset.deleted_forms:
            if f.instance.pk:
                f.instance.file.delete(save=False)
                f.instance.delete()
                formset.deleted_objects.append(f.instance)
        # What the admin's change message reads (the files were stored above).
        formset.new_objects, formset.changed_objects = [], []

    @admin.action(description="Reveal private scores")
    def reveal(self, request, queryset):  # noqa: ANN001, ANN201
        for ts in queryset:
            datasets.reveal(test_set=ts)
        self.message_user(request, f"Revealed {queryset.count()} test set(s).")

    @admin.action(description="Rescore every run of these test sets' phases")
    def rescore_all(self, request, queryset):  # noqa: ANN001, ANN201
        ids = list(
            Submission.objects.filter(phase__test_sets__in=queryset)
            .values_list("pk", flat=True)
            .distinct()
        )
        with transaction.atomic():
            n = lifecycle.rescore(submission_ids=ids)
        self.message_user(request, f"{n} run(s) queued for rescoring.")


@admin.register(Submission)
class SubmissionAdmin(OrganisedQuerysetMixin, admin.ModelAdmin):
    task_path = "phase__task"
    list_display = [
        "pk",
        "team",
        "method_name",
        "phase",
        "track",
        "status",
        "failure_category",
        "hidden",
        "final_selected",
        "created_at",
        "scorer_version",
    ]
    list_filter = [
        "status",
        "failure_category",
        "hidden",
        "final_selected",
        "phase__task",
    ]
    readonly_fields = [f.name for f in Submission._meta.fields]
    actions = ["rescore"]

    @admin.action(description="Rescore the selected runs")
    def rescore(self, request, queryset):  # noqa: ANN001, ANN201
        with transaction.atomic():
            n = lifecycle.rescore(
                submission_ids=list(queryset.values_list("pk", flat=True))
            )
        self.message_user(request, f"{n} run(s) queued for rescoring.")


@admin.register(Registration)
class RegistrationAdmin(OrganisedQuerysetMixin, admin.ModelAdmin):
    list_display = ["team", "task", "status", "created_at"]
    list_filter = ["status", "task"]
    form = RegistrationForm
    raw_id_fields = ["team"]  # a select box would list every team of the site
    actions = ["approve"]

    @admin.action(description="Approve")
    def approve(self, request, queryset):  # noqa: ANN001, ANN201
        for registration in queryset:
            try:
                teams.decide_registration(
                    registration=registration, user=request.user, approve=True
                )
            except roles.OrganiserCompetes as exc:
                self.message_user(request, str(exc), level=messages.ERROR)


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    form = TeamForm
    list_display = ["name", "created_at"]

    def formfield_for_dbfield(self, db_field, request, **kwargs):  # noqa: ANN001, ANN003, ANN201
        if db_field.name == "members":
            return UsernamesField(required=False, label="Members")
        return super().formfield_for_dbfield(db_field, request, **kwargs)


__all__ = ["hashlib"]
