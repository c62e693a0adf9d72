"""Forms of the console's test set and gold pages (the task/phase forms are in the
console's other form modules)."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.utils.html import escape

from evalhub.competitions.models import Phase, SharedTask, TestSet
from evalhub.competitions.services.test_data import Upload, roles
from evalhub.console.services import testsets
from evalhub.console.slugs import slug_from_name


class TestSetForm(forms.ModelForm):
    """Add a test set (phase and visibility chosen once: a later change of
    visibility is an explicit action with its own confirmation) or edit one."""

    __test__ = False

    class Meta:
        model = TestSet
        fields = [
            "phase",
            "name",
            "slug",
            "visibility",
            "counts_for_ranking",
            "reveal_at_phase_end",
            "order",
        ]
        help_texts = {
            "slug": "Letters, digits and hyphens; unique in the phase. Left empty: "
            "made from the name.",
            "visibility": "Private: scores hidden from everyone but the organisers "
            "(the runs' teams included) until you reveal them.",
            "counts_for_ranking": "Counted in the phase's overall ranking.",
            "reveal_at_phase_end": "A private test set's scores become public, and "
            "the teams are told by mail, when its phase closes.",
            "order": "Test sets are listed by this number.",
        }

    def __init__(self, *args, task: SharedTask, **kwargs):  # noqa: ANN002, ANN003
        super().__init__(*args, **kwargs)
        self.fields["slug"].required = False
        if self.instance.pk:
            del self.fields["phase"]
            del self.fields["visibility"]
        else:
            self.fields["phase"].queryset = Phase.objects.filter(task=task)
            self.fields["phase"].empty_label = None
            self.fields["order"].required = False

    def clean(self) -> dict:
        data = super().clean()
        phase = data.get("phase") or getattr(self.instance, "phase", None)
        slug = slug_from_name(data.get("slug"), data.get("name"))
        if not slug:
            self.add_error("slug", "Give the test set a name or a slug.")
            return data
        data["slug"] = slug
        if phase is not None:
            clash = TestSet.objects.filter(phase=phase, slug=slug)
            if self.instance.pk:
                clash = clash.exclude(pk=self.instance.pk)
            if clash.exists():
                self.add_error("slug", f"Phase {phase.name} has a test set “{slug}”.")
            if data.get("order") is None:
                data["order"] = testsets.next_order(phase=phase)
        return data

    def _post_clean(self) -> None:
        self.instance.slug = self.cleaned_data.get("slug", self.instance.slug)
        super()._post_clean()


class FilesForm(forms.Form):
    """One upload field per file role the task type declares, named and explained
    by the type; the organiser never types a role."""

    def __init__(self, *args, test_set: TestSet, **kwargs):  # noqa: ANN002, ANN003
        super().__init__(*args, **kwargs)
        stored = {f.role: f for f in test_set.files.all()}
        for role, private in roles(test_set):
            kind = "hidden gold, organisers only" if private else "public input"
            now = stored.get(role.key)
            state = f" Now: {now.original_name}." if now else ""
            optional = "" if role.required else " Optional."
            # Django prints help texts unescaped: the type's help (term<TAB>label)
            # and a stored file's name are text.
            self.fields[f"file_{role.key}"] = forms.FileField(
                label=f"{role.label} ({kind})",
                help_text=escape(f"{role.help}{optional}{state}"),
                required=False,
            )

    def clean(self) -> dict:
        data = super().clean()
        if not any(data.get(name) for name in self.fields):
            raise ValidationError("Choose at least one file to upload.")
        return data

    def uploads(self) -> list[Upload]:
        return [
            Upload(name.removeprefix("file_"), f.name, f.read())
            for name, f in self.cleaned_data.items()
            if name.startswith("file_") and f
        ]


class VisibilityForm(forms.Form):
    visibility = forms.ChoiceField(choices=TestSet.Visibility.choices)


class ReleaseForm(forms.Form):
    confirm_unrevealed = forms.BooleanField(
        required=False,
        label="Release the gold although private scores are still hidden",
    )
