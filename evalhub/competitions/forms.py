from __future__ import annotations

from django import forms
from django.conf import settings

from evalhub.competitions import upload_limits


class SubmitForm(forms.Form):
    run = forms.FileField(
        label="Run file", help_text="See the submission format below."
    )
    method_name = forms.CharField(max_length=100, label="Method name")
    method_description = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        required=False,
        label="Method description",
    )
    hide = forms.BooleanField(
        required=False,
        label="Hide this run from the public",
        help_text="By default a run is public: everyone sees it on the leaderboards "
        "and on its page. A hidden run is seen by your team and the organisers "
        "only. You can change this later in your team's runs list.",
    )

    def __init__(self, *args, tracks=(), **kwargs):  # noqa: ANN001, ANN002, ANN003
        """``tracks``: the phase's tracks; with any, the run must name one (a
        select; a phase without tracks shows none)."""
        super().__init__(*args, **kwargs)
        # The browser warns before sending a file over the limit (static/evalhub.js).
        limit = settings.MAX_UPLOAD_BYTES
        self.fields["run"].widget.attrs["data-max-bytes"] = str(limit)
        self.fields[
            "run"
        ].help_text = (
            f"At most {upload_limits.mib(limit)}. See the submission format below."
        )
        if tracks:
            self.fields["track"] = forms.ChoiceField(
                label="Track",
                choices=[("", "Choose a track")] + [(t.slug, t.name) for t in tracks],
                help_text="The track this run competes in; it cannot change once "
                "the run is scored. "
                + " ".join(
                    f"{t.name}: {t.description}" for t in tracks if t.description
                ),
            )
            self.order_fields(["run", "track"])


class RegisterForm(forms.Form):
    existing_team = forms.ModelChoiceField(
        queryset=None, required=False, label="One of your teams"
    )  # type: ignore[arg-type]
    new_team = forms.CharField(
        max_length=100, required=False, label="…or a new team name"
    )

    def __init__(self, *args, teams, **kwargs):  # noqa: ANN001, ANN002, ANN003
        super().__init__(*args, **kwargs)
        self.fields["existing_team"].queryset = teams

    def clean(self):  # noqa: ANN201
        data = super().clean()
        if not data.get("existing_team") and not (data.get("new_team") or "").strip():
            raise forms.ValidationError(
                "Choose one of your teams or give a new team name."
            )
        return data


class BundleForm(forms.Form):
    bundle = forms.FileField(
        label="Task bundle (.zip)", help_text="task.yaml and the data files it names"
    )


class CreatorChangeForm(forms.Form):
    """Site staff grant or withdraw a user's right to create tasks."""

    user = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    action = forms.ChoiceField(choices=[("grant", "Grant"), ("withdraw", "Withdraw")])
    q = forms.CharField(required=False, max_length=150, widget=forms.HiddenInput)
