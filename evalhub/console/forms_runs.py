"""The forms of the console's *Runs* page: the filters and search (GET), and a bulk
action on the ticked runs or on every run matching the filters (POST)."""

from __future__ import annotations

from django import forms
from django.db.models import QuerySet
from django.http import QueryDict

from evalhub.competitions.models import SharedTask, Submission, Team, Track
from evalhub.console.services import runs

YES_NO = [("", "Any"), ("yes", "Yes"), ("no", "No")]
#: At most this many runs ticked at once (a page has ``runs.PER_PAGE``).
MAX_TICKED = 500


def _yes_no(value: str) -> bool | None:
    return {"yes": True, "no": False}.get(value)


class RunFilterForm(forms.Form):
    q = forms.CharField(
        label="Search",
        required=False,
        max_length=100,
        help_text="Team, method or run number",
    )
    status = forms.ChoiceField(
        choices=[("", "Any"), *Submission.Status.choices], required=False
    )
    phase = forms.ModelChoiceField(
        queryset=None, required=False, to_field_name="slug", empty_label="Any"
    )
    track = forms.ModelChoiceField(queryset=None, required=False, empty_label="Any")
    team = forms.ModelChoiceField(queryset=None, required=False, empty_label="Any")
    hidden = forms.ChoiceField(choices=YES_NO, required=False)
    final = forms.ChoiceField(choices=YES_NO, required=False)

    def __init__(self, *args: object, task: SharedTask, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fields["phase"].queryset = task.phases.all()  # type: ignore[attr-defined]
        tracks = Track.objects.filter(phase__task=task).select_related("phase")
        self.fields["track"].queryset = tracks.order_by("phase", "order", "pk")  # type: ignore[attr-defined]
        self.fields["track"].label_from_instance = (  # type: ignore[attr-defined]
            lambda t: f"{t.phase.name}: {t.name}"
        )
        self.fields["team"].queryset = (  # type: ignore[attr-defined]
            Team.objects.filter(submissions__phase__task=task)
            .distinct()
            .order_by("name")
        )

    def filters(self) -> runs.Filters:
        """The filters of a valid form (no filter for an invalid one)."""
        if not self.is_valid():
            return runs.Filters()
        data = self.cleaned_data
        return runs.Filters(
            status=data["status"],
            phase=data["phase"],
            track=data["track"],
            team=data["team"],
            hidden=_yes_no(data["hidden"]),
            final=_yes_no(data["final"]),
            query=data["q"],
        )


class RunIdsField(forms.Field):
    """The ticked runs' numbers (``run`` repeated)."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value: object) -> list[int]:
        if not value:
            return []
        if not isinstance(value, list | tuple):
            value = [value]
        if len(value) > MAX_TICKED:
            raise forms.ValidationError(
                f"At most {MAX_TICKED} runs can be ticked at once: choose "
                "“every run matching the filters” instead."
            )
        try:
            return sorted({int(v) for v in value})
        except (TypeError, ValueError):
            raise forms.ValidationError("Not a run number.") from None


class RunActionForm(forms.Form):
    action = forms.ChoiceField(choices=runs.ACTIONS)
    scope = forms.ChoiceField(
        choices=[
            ("ticked", "The ticked runs"),
            ("matching", "Every run matching the filters"),
        ],
        initial="ticked",
    )
    run = RunIdsField(required=False)
    #: the list's filters, as its address gave them (``status=scored&phase=...``)
    filters = forms.CharField(required=False, max_length=2000)
    confirm = forms.BooleanField(required=False)

    def __init__(self, *args: object, task: SharedTask, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.task = task

    def clean(self) -> dict[str, object]:
        data = super().clean() or {}
        filter_form = RunFilterForm(
            QueryDict(data.get("filters") or ""), task=self.task
        )
        if not filter_form.is_valid():
            raise forms.ValidationError("The filters are not valid any more.")
        data["filter_values"] = filter_form.filters()
        if data.get("scope") == "ticked" and not data.get("run"):
            raise forms.ValidationError(
                "No run is ticked: tick runs, or choose every run matching the filters."
            )
        return data

    def selection(self) -> QuerySet[Submission]:
        """The runs the action is for (a valid form)."""
        data = self.cleaned_data
        return runs.selection(
            task=self.task,
            filters=data["filter_values"],
            run_ids=data["run"] if data["scope"] == "ticked" else None,
        )
