from __future__ import annotations

from django import forms


class TeamForm(forms.Form):
    name = forms.CharField(max_length=100, label="Team name")


class InviteForm(forms.Form):
    who = forms.CharField(
        max_length=254,
        label="Username or email",
        help_text="The person needs an account; otherwise create an invitation link.",
    )
