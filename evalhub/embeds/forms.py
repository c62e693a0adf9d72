"""The console's form of the origins allowed to frame a task's embeds."""

from __future__ import annotations

from django import forms

from evalhub.embeds.services import origins


class OriginsForm(forms.Form):
    origins = forms.CharField(
        label="Pages allowed to show the embeds",
        required=False,
        widget=forms.Textarea(attrs={"rows": 5, "spellcheck": "false"}),
        help_text="One origin a line: scheme://host or scheme://host:port, e.g. "
        "https://workshop.example.org (https://*.example.org for any subdomain). "
        "None: no page may frame the embeds; badges are images and need none.",
    )

    def clean_origins(self) -> str:
        text = self.cleaned_data["origins"]
        try:
            origins.parse(text)
        except origins.Invalid as exc:
            raise forms.ValidationError(exc.problems) from None
        return text
