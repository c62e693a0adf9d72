from __future__ import annotations

from django import forms

from evalhub.participation.services.roster import filters
from evalhub.participation.services.terms import COMMON_LICENCES


class TermsForm(forms.Form):
    licence = forms.CharField(
        max_length=64,
        required=False,
        help_text="An SPDX identifier (e.g. CC-BY-4.0; see spdx.org/licenses), or "
        "“custom” when the terms below say what the licence is. Shown on the task "
        "page.",
        widget=forms.TextInput(attrs={"list": "licences", "autocomplete": "off"}),
    )
    text = forms.CharField(
        label="Terms of use of the data (Markdown)",
        required=False,
        widget=forms.Textarea(attrs={"rows": 12}),
        help_text="When set, every participant accepts them before downloading any "
        "file or submitting a run. Changing them makes a new version, which everyone "
        "accepts again. Empty: the task's public files are open to all.",
    )
    require_profile = forms.BooleanField(
        required=False,
        label="Require affiliation and country before a team registers",
    )
    licences = COMMON_LICENCES


class AcceptForm(forms.Form):
    version = forms.IntegerField(widget=forms.HiddenInput)
    agree = forms.BooleanField(
        label="I have read these terms and accept them for myself and my team."
    )


class ProfileForm(forms.Form):
    affiliation = forms.CharField(max_length=200, required=False)
    country = forms.CharField(max_length=100, required=False)


class RosterFilterForm(forms.Form):
    filter = forms.ChoiceField(choices=filters, required=False)
    q = forms.CharField(label="Search", max_length=200, required=False)
